/*
 * Writing a short text to a kernel file (see sysfile.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "tools/sysfile.h"

int
sysfile_write(const char *path, const char *text)
{
	ssize_t len = (ssize_t)strlen(text), n;
	int fd, e;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	n = write(fd, text, (size_t)len);
	e = errno;
	close(fd);
	errno = e;
	return n == len ? 0 : -1;
}
