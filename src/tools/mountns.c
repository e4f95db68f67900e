/*
 * Read-only paths in a private mount namespace (see mountns.h).
 *
 * Each path is opened first (O_PATH, not following a link) and mounted
 * through its descriptor, so the bind lands on the very file that was
 * looked at even if the name is swapped meanwhile; the read-only remount
 * goes through a descriptor of the new mount, checked to be the same
 * file. A remount of a bind mount must repeat the flags the mount has
 * (nosuid, nodev, noexec, the atime ones): in a user namespace they are
 * locked, and dropping one is refused.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/kept.h"
#include "tools/mountns.h"
#include "tools/sysfile.h"
#include "util/xmalloc.h"

/* A namespace of our own: plain as root, in a user namespace mapping
 * only ourselves otherwise. */
static int
mountns_enter(char **err)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (uid == 0) {
		if (unshare(CLONE_NEWNS) == -1)
			goto fail;
		return 0;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
		goto fail;
	if (sysfile_write("/proc/self/setgroups", "deny") == -1 &&
	    errno != ENOENT)
		goto fail;
	snprintf(map, sizeof map, "%lu %lu 1", (unsigned long)uid,
	    (unsigned long)uid);
	if (sysfile_write("/proc/self/uid_map", map) == -1)
		goto fail;
	snprintf(map, sizeof map, "%lu %lu 1", (unsigned long)gid,
	    (unsigned long)gid);
	if (sysfile_write("/proc/self/gid_map", map) == -1)
		goto fail;
	return 0;
fail:
	*err = xasprintf("cannot make a mount namespace for the read-only "
	    "paths: %s", strerror(errno));
	return -1;
}

/* The flags a remount must keep. */
static unsigned long
mountns_kept_flags(unsigned long f)
{
	unsigned long keep = 0;

	if (f & ST_NOSUID)
		keep |= MS_NOSUID;
	if (f & ST_NODEV)
		keep |= MS_NODEV;
	if (f & ST_NOEXEC)
		keep |= MS_NOEXEC;
	if (f & ST_NOATIME)
		keep |= MS_NOATIME;
	if (f & ST_NODIRATIME)
		keep |= MS_NODIRATIME;
	if (f & ST_RELATIME)
		keep |= MS_RELATIME;
	return keep;
}

/* Binds path on itself and makes the bind read-only. */
static int
mountns_one(const char *path, char **err)
{
	struct stat before, after;
	struct statvfs sv;
	char proc[64];
	int fd, top = -1;

	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 && errno == ENOENT)
		return 0;
	if (fd == -1 || fstat(fd, &before) == -1)
		goto fail;
	if (S_ISLNK(before.st_mode)) {
		errno = ELOOP;
		goto fail;
	}
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	if (mount(proc, proc, NULL, MS_BIND, NULL) == -1)
		goto fail;
	/* The name now leads to the bind mount's root. */
	if ((top = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    fstat(top, &after) == -1 || fstatvfs(top, &sv) == -1)
		goto fail;
	if (after.st_dev != before.st_dev || after.st_ino != before.st_ino) {
		errno = ESTALE;
		goto fail;
	}
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", top);
	if (mount(NULL, proc, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
	    mountns_kept_flags(sv.f_flag), NULL) == -1)
		goto fail;
	if (fstatvfs(top, &sv) == -1 || !(sv.f_flag & ST_RDONLY)) {
		errno = EROFS;	/* what we asked for and did not get */
		goto fail;
	}
	close(top);
	close(fd);
	return 0;
fail:
	*err = xasprintf("cannot make %s read-only: %s", path,
	    strerror(errno));
	if (top != -1)
		close(top);
	if (fd != -1)
		close(fd);
	return -1;
}

/* Whether dir (whose stat is st) is a mount point: its mount differs
 * from its parent's (statx's mount id). */
static int
mountns_is_mountpoint(const char *dir, const struct stat *st)
{
	struct statx a, b;
	char *parent = xasprintf("%s/..", dir);
	int rc;

	(void)st;
	rc = statx(AT_FDCWD, dir, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &a) == 0 &&
	    statx(AT_FDCWD, parent, 0, STATX_MNT_ID, &b) == 0 &&
	    (a.stx_mask & STATX_MNT_ID) && a.stx_mnt_id != b.stx_mnt_id;
	free(parent);
	return rc;
}

/*
 * A git directory that holds read-only paths is bind-mounted on itself
 * (writable still): a mount point can be neither renamed nor removed, so
 * a command cannot move the repository's .git aside and put one of its
 * own, with hooks of its choosing, in its place. Once per directory.
 */
static int
mountns_anchor(const char *path, char **err)
{
	const char *slash = strrchr(path, '/');
	char *dir, proc[64];
	struct stat st;
	int fd;

	if (slash == NULL || slash - path < 5 || strncmp(slash - 5, "/.git",
	    5) != 0)
		return 0;
	dir = xasprintf("%.*s", (int)(slash - path), path);
	fd = open(dir, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1 || fstat(fd, &st) == -1) {
		*err = xasprintf("cannot keep %s in place: %s", dir,
		    strerror(errno));
		goto fail;
	}
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	/* Already a mount point (anchored for an earlier path): done. */
	if (mountns_is_mountpoint(dir, &st)) {
		close(fd);
		free(dir);
		return 0;
	}
	if (mount(proc, proc, NULL, MS_BIND, NULL) == -1) {
		*err = xasprintf("cannot keep %s in place: %s", dir,
		    strerror(errno));
		goto fail;
	}
	close(fd);
	free(dir);
	return 0;
fail:
	if (fd != -1)
		close(fd);
	free(dir);
	return -1;
}

/*
 * In the holder, as root, once its namespace is made: a proc of the
 * namespace's own over /proc, on which a process sees only the processes
 * it could trace (hidepid=ptraceable). A command has no capability and a
 * Landlock domain of its own, so neither huddle, nor a reaper, nor any
 * other command (another team's, whose reaper's command line holds its
 * proxy port) is within its sight; its own processes are. A user other
 * than root may mount a proc only for a PID namespace of its own, which
 * a command does not have. A kernel that does not know the option
 * (before 5.8) refuses it with EINVAL: /proc stays as it was.
 */
static int
mountns_proc(char **err)
{
	if (geteuid() != 0 || mount("proc", "/proc", "proc", MS_NOSUID |
	    MS_NODEV | MS_NOEXEC, "hidepid=ptraceable") == 0 || errno == EINVAL)
		return 0;
	*err = xasprintf("cannot mount a proc of the commands' own: %s",
	    strerror(errno));
	return -1;
}

int
mountns_own_user(void)
{
	char *err = NULL;

	if (mountns_enter(&err) == -1) {
		free(err);
		return -1;
	}
	return 0;
}

int
mountns_readonly(char *const *paths, char **err)
{
	size_t i;

	if (paths[0] == NULL && geteuid() != 0)
		return 0;
	if (mountns_enter(err) == -1)
		return -1;
	/* Nothing done here may reach the namespace we came from. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1) {
		*err = xasprintf("cannot make the mounts private: %s",
		    strerror(errno));
		return -1;
	}
	for (i = 0; paths[i] != NULL; i++)
		if (mountns_anchor(paths[i], err) == -1)
			return -1;
	for (; *paths != NULL; paths++)
		if (mountns_one(*paths, err) == -1)
			return -1;
	return 0;
}

int
mountns_join(int pidfd, char **err)
{
	char cwd[PATH_MAX];
	int what = CLONE_NEWNS | (geteuid() != 0 ? CLONE_NEWUSER : 0);

	if (getcwd(cwd, sizeof cwd) == NULL) {
		*err = xasprintf("cannot tell the working directory: %s",
		    strerror(errno));
		return -1;
	}
	if (setns(pidfd, what) == -1) {
		int e = errno;

		*err = xasprintf("cannot join the command namespace: %s",
		    strerror(e));
		errno = e;
		return -1;
	}
	/* Joining a mount namespace moves to its root. */
	if (chdir(cwd) == -1) {
		*err = xasprintf("%s: %s", cwd, strerror(errno));
		return -1;
	}
	return 0;
}

int
mountns_pin_new(const char *program, char *const *paths,
    struct mountns_pin *pin, char **err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char **argv, buf[512], *env[] = { NULL };
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, rc;
	size_t n = 0, i;
	ssize_t got, len = 0;

	memset(pin, 0, sizeof *pin);
	pin->pidfd = pin->hold = -1;
	while (paths != NULL && paths[n] != NULL)
		n++;
	argv = xcalloc(n + 3, sizeof *argv);
	argv[0] = (char *)"huddle";
	argv[1] = (char *)MOUNTNS_HOLDER_ARG;
	for (i = 0; i < n; i++)
		argv[i + 2] = paths[i];
	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1) {
		*err = xasprintf("cannot start the namespace holder: %s",
		    strerror(errno));
		goto fail;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawnattr_init(&at);
	/* A session of its own: a Ctrl-C at the person's terminal is not
	 * for it. */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
	rc = kept_spawn(program, &pin->pid, &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(in[0]);
	close(out[1]);
	in[0] = out[1] = -1;
	if (rc != 0) {
		pin->pid = 0;
		*err = xasprintf("cannot start the namespace holder: %s",
		    strerror(rc));
		goto fail;
	}
	pin->hold = in[1];
	in[1] = -1;
	while (len < (ssize_t)sizeof buf - 1 && (got = read(out[0],
	    buf + len, sizeof buf - 1 - (size_t)len)) != 0) {
		if (got == -1 && errno == EINTR)
			continue;
		if (got == -1)
			break;
		len += got;
		if (memchr(buf, '\n', (size_t)len) != NULL)
			break;
	}
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (strcmp(buf, "ok") != 0) {
		*err = xasprintf("the command namespace: %s", *buf ? buf :
		    "its holder ended");
		goto fail;
	}
	if ((pin->pidfd = (int)syscall(SYS_pidfd_open, pin->pid, 0)) == -1) {
		*err = xasprintf("the command namespace: %s", strerror(errno));
		goto fail;
	}
	close(out[0]);
	free(argv);
	return 0;
fail:
	if (in[0] != -1)
		close(in[0]);
	if (in[1] != -1)
		close(in[1]);
	if (out[0] != -1)
		close(out[0]);
	if (out[1] != -1)
		close(out[1]);
	free(argv);
	mountns_pin_free(pin);
	return -1;
}

char *
mountns_pin_proc(const struct mountns_pin *pin)
{
	return xasprintf("/proc/%ld/root/proc", (long)pin->pid);
}

void
mountns_pin_free(struct mountns_pin *pin)
{
	if (pin->hold != -1 && pin->hold != 0)
		close(pin->hold);
	if (pin->pidfd != -1 && pin->pidfd != 0)
		close(pin->pidfd);
	if (pin->pid > 0) {
		while (waitpid(pin->pid, NULL, 0) == -1 && errno == EINTR)
			;
		kept_end(pin->pid);
	}
	memset(pin, 0, sizeof *pin);
	pin->pidfd = pin->hold = -1;
}

int
mountns_holder_main(int argc, char **argv)
{
	char *err = NULL, c;
	ssize_t n;
	int rc;

	/* No parent-death signal: it would come with the death of the
	 * thread that started us. huddle's death closes our stdin all the
	 * same, and we end. */
	(void)argc;
	if (argv[2] == NULL && geteuid() != 0) {
		if ((rc = mountns_own_user()) == -1)
			err = xstrdup("no user namespace");
	} else if ((rc = mountns_readonly(argv + 2, &err)) == 0)
		rc = mountns_proc(&err);
	if (rc == -1) {
		dprintf(1, "%s\n", err);
		return 1;
	}
	if (write(1, "ok\n", 3) != 3)
		return 1;
	close(1);
	while ((n = read(0, &c, 1)) != 0 && !(n == -1 && errno != EINTR))
		;
	return 0;
}
