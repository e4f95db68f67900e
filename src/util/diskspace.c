/*
 * Free space and the reserve (see diskspace.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "util/diskspace.h"

int64_t
diskspace_free(const char *path)
{
	struct statvfs sv;

	if (statvfs(path, &sv) == -1)
		return -1;
	return (int64_t)sv.f_bavail * (int64_t)sv.f_frsize;
}

int
diskspace_full_errno(int e)
{
	return e == ENOSPC || e == EDQUOT;
}

int
diskspace_hold(const char *path, int64_t bytes)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600), rc, e;

	if (fd == -1)
		return -1;
	/* Real blocks: a file system without fallocate gets them written
	 * (glibc's fallback), never a sparse file that holds nothing. */
	if ((rc = posix_fallocate(fd, 0, bytes)) == 0)
		rc = fsync(fd) == -1 ? errno : 0;
	close(fd);
	if (rc != 0) {
		e = rc;
		unlink(path);
		errno = e;
		return -1;
	}
	return 0;
}

int
diskspace_release(const char *path)
{
	return unlink(path) == 0;
}
