/*
 * The kernel's keyrings, kept from a command: the person's session
 * keyring may hold Kerberos tickets, file-system encryption keys and
 * network file systems' tokens. A command starts in a session keyring
 * of its own, empty, and the seccomp filter (sysfilter.h) refuses every
 * keyring call besides.
 */
#ifndef HUDDLE_TOOLS_KEYRING_H
#define HUDDLE_TOOLS_KEYRING_H

/*
 * Moves the calling process (and what it runs) into a new anonymous
 * session keyring, so that no key of the session it came from is within
 * its reach, even to the kernel's own lookups on its behalf. A kernel
 * without keyrings, or a keyctl refused by a filter above huddle's
 * (which binds the command as well), has nothing to leave: that is not
 * an error. Returns 0, or -1 with *err (the command must not run).
 */
int keyring_leave(char **err);

#endif
