/*
 * The environment a tool's processes get (see env.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tools/env.h"
#include "util/xmalloc.h"

extern char **environ;

#define ENV_PASS_MAX	32

static const char *env_passed[ENV_PASS_MAX];
static size_t env_npassed;

/* The copies env_seal made, kept for the program's life (an unsetenv
 * drops environ's pointer, not the copy). */
static char **env_sealed;
static size_t env_nsealed;

void
env_pass(const char *name)
{
	if (env_npassed < ENV_PASS_MAX)
		env_passed[env_npassed++] = name;
}

/* Whether `name` (len bytes) contains `word`, ignoring case. */
static int
env_name_has(const char *name, size_t len, const char *word)
{
	size_t wl = strlen(word), i;

	for (i = 0; i + wl <= len; i++) {
		if (strncasecmp(name + i, word, wl) == 0)
			return 1;
	}
	return 0;
}

/* Whether a value is a URL carrying a password: scheme://user:pw@host. */
static int
env_url_has_password(const char *v)
{
	const char *p = v, *end;

	if (!isalpha((unsigned char)*p))
		return 0;
	while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' ||
	    *p == '.')
		p++;
	if (strncmp(p, "://", 3) != 0)
		return 0;
	p += 3;
	end = p + strcspn(p, "/?#");
	for (; p < end; p++) {
		if (*p == ':' && memchr(p, '@', (size_t)(end - p)) != NULL)
			return 1;
	}
	return 0;
}

/* Whether an entry looks like a secret, whatever --pass-env says. */
static int
env_looks_secret(const char *entry)
{
	static const char *const words[] = { "KEY", "TOKEN", "SECRET",
	    "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "SESSION" };
	const char *eq = strchr(entry, '=');
	size_t len = eq != NULL ? (size_t)(eq - entry) : strlen(entry), i;

	for (i = 0; i < sizeof words / sizeof *words; i++) {
		if (env_name_has(entry, len, words[i]))
			return 1;
	}
	return eq != NULL && env_url_has_password(eq + 1);
}

/*
 * Variables that lead to the person's desktop: the terminal multiplexer,
 * the display, the session bus, the agents of ssh and gpg, the runtime
 * directory with their sockets, editors and terminals that take commands.
 * A command that knows one could ask something outside its sandbox to
 * act for it.
 */
static const char *const env_desktop[] = {
	"TMUX", "TMUX_PANE", "STY", "WINDOW", "ZELLIJ", "ZELLIJ_SESSION_NAME",
	"DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "XAUTHORITY",
	"DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS",
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_ASKPASS", "GIT_ASKPASS",
	"SUDO_ASKPASS", "GPG_AGENT_INFO", "GNOME_KEYRING_CONTROL",
	"XDG_RUNTIME_DIR", "DOCKER_HOST", "PULSE_SERVER", "SWAYSOCK",
	"I3SOCK", "HYPRLAND_INSTANCE_SIGNATURE", "KITTY_LISTEN_ON",
	"WEZTERM_UNIX_SOCKET", "ALACRITTY_SOCKET", "NVIM",
	"NVIM_LISTEN_ADDRESS", "VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE",
	"KONSOLE_DBUS_SERVICE", "KONSOLE_DBUS_SESSION", "GNOME_TERMINAL_SCREEN",
	"DESKTOP_SESSION", "XDG_SESSION_TYPE", "XDG_SESSION_DESKTOP",
	"XDG_SESSION_ID",
};

/* Whether an entry points at the desktop (env_desktop). */
static int
env_is_desktop(const char *entry, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof env_desktop / sizeof *env_desktop; i++) {
		if (strlen(env_desktop[i]) == len &&
		    strncmp(env_desktop[i], entry, len) == 0)
			return 1;
	}
	return 0;
}

int
env_is_secret(const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t len = eq != NULL ? (size_t)(eq - entry) : strlen(entry), i;

	for (i = 0; i < env_npassed; i++) {
		if (strlen(env_passed[i]) == len &&
		    strncmp(env_passed[i], entry, len) == 0)
			return 0;
	}
	return env_is_desktop(entry, len) || env_looks_secret(entry);
}

void
env_seal(void)
{
	size_t i, len;
	char *eq;

	for (i = 0; environ[i] != NULL; i++) {
		if ((eq = strchr(environ[i], '=')) == NULL ||
		    (!env_looks_secret(environ[i]) && !env_is_desktop(
		    environ[i], (size_t)(eq - environ[i]))))
			continue;
		len = strlen(eq + 1);
		/* The copy serves getenv() and --pass-env from now on; the
		 * bytes /proc/PID/environ shows are overwritten. */
		env_sealed = xrealloc(env_sealed, (env_nsealed + 1) *
		    sizeof *env_sealed);
		env_sealed[env_nsealed] = xstrdup(environ[i]);
		memset(eq + 1, 0, len);
		environ[i] = env_sealed[env_nsealed++];
	}
}

char **
env_for_browser(void)
{
	size_t n, k = 0;
	char **env;

	for (n = 0; environ[n] != NULL; n++)
		;
	env = xcalloc(n + 1, sizeof *env);
	/* The desktop's variables stay, whatever their names look like
	 * (XAUTHORITY, DBUS_SESSION_BUS_ADDRESS): the browser opens a
	 * window on it. */
	for (n = 0; environ[n] != NULL; n++) {
		if (env_is_desktop(environ[n], strcspn(environ[n], "=")) ||
		    !env_looks_secret(environ[n]) || !env_is_secret(environ[n]))
			env[k++] = environ[n];
	}
	env[k] = NULL;
	return env;
}

char **
env_for_tools(void)
{
	size_t n, k = 0;
	char **env;

	for (n = 0; environ[n] != NULL; n++)
		;
	env = xcalloc(n + 1, sizeof *env);
	for (n = 0; environ[n] != NULL; n++) {
		if (!env_is_secret(environ[n]))
			env[k++] = environ[n];
	}
	env[k] = NULL;
	return env;
}
