/*
 * A session keyring of the command's own (see keyring.h). The raw
 * system call: no library for one call.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tools/keyring.h"
#include "util/xmalloc.h"

#define KEYRING_JOIN_SESSION	1	/* KEYCTL_JOIN_SESSION_KEYRING */

int
keyring_leave(char **err)
{
	/* A NULL name asks for a new keyring, nameless and empty; the
	 * kernel lets it exceed the user's key quota, so a full quota does
	 * not stop the command. */
	if (syscall(SYS_keyctl, KEYRING_JOIN_SESSION, (char *)NULL) != -1 ||
	    errno == ENOSYS || errno == EPERM)
		return 0;
	*err = xasprintf("cannot leave the session keyring: %s",
	    strerror(errno));
	return -1;
}
