/*
 * Dropping every capability (see caps.h), with the raw system calls:
 * five sets, a few lines, no library needed.
 *
 * The bounding set goes first, while CAP_SETPCAP is still held; a
 * process without it (a user other than root, outside a user namespace)
 * has nothing to drop there and nothing it runs can gain anything once
 * no_new_privs is set, which Landlock and the seccomp filter set next.
 */
#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tools/caps.h"
#include "util/xmalloc.h"

/* The highest capability the kernel knows. */
static int
caps_last(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = 63;

	if (f != NULL) {
		if (fscanf(f, "%d", &last) != 1 || last < 0 || last > 63)
			last = 63;
		fclose(f);
	}
	return last;
}

int
caps_drop_all(char **err)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int cap, last = caps_last(), may;

	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) == -1) {
		*err = xasprintf("cannot read the capabilities: %s",
		    strerror(errno));
		return -1;
	}
	may = (d[0].effective >> CAP_SETPCAP) & 1;
	for (cap = 0; may && cap <= last; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1 &&
		    errno != EINVAL) {
			*err = xasprintf("cannot drop capability %d: %s", cap,
			    strerror(errno));
			return -1;
		}
	}
	/* Ambient capabilities: absent before Linux 4.3, and then none. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1 &&
	    errno != EINVAL) {
		*err = xasprintf("cannot clear the ambient capabilities: %s",
		    strerror(errno));
		return -1;
	}
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) == -1) {
		*err = xasprintf("cannot drop the capabilities: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}
