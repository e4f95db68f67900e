/*
 * libFuzzer target for the agent's tools: what the model sends as a tool
 * input goes through the team's tool interface (team_tool_call, agent/
 * team.h), the same dispatch and gates an agent's turn uses, against a
 * real team in a temporary directory.
 *
 * The team is opened once (team_open: a store, a bus and a protocol
 * engine) with the members lead, alice, bob (plan required, never
 * approved) and carol (plan required; the plans the lead reviews are
 * hers). No agent thread is ever started: the target makes the tool
 * members (team_tool_member) of the lead, alice and bob and calls the
 * tools on the fuzzer's thread. The team is thrown away and made afresh when a
 * member has terminated (an approved shutdown ends its teammate) and when
 * its store has grown large.
 *
 * Input: the first byte chooses the tool, the second the agent (and, for
 * inputs built from raw text, `approve`), the rest is the tool input as
 * JSON, objects or not. Text that is not JSON is split at newlines into
 * the tool's string fields in order, so that raw paths and texts get
 * through too. Two things in the input are replaced, to reach what a
 * fuzzer cannot guess: a request_id "PLAN", "STOP", "PERM" or "DONE"
 * becomes the id of a fresh pending plan request from carol, a fresh
 * pending shutdown request to the acting teammate, a pending permission
 * request, or a request already cancelled; a path starting "@W" or "@B"
 * starts with the absolute working directory or the directory above it.
 *
 * Tools that would start something (bash running a command,
 * spawn_teammate starting a thread, submit_plan blocking for a decision)
 * are called only with inputs that their checks must refuse.
 *
 * What must hold, else abort():
 *   - out.text is set and valid UTF-8, after every call;
 *   - a tool not meant for the agent, an input that is not an object, a
 *     missing or mistyped field, or a gated tool of bob's is a tool error;
 *   - results that follow from the team's state: send_message to another
 *     member and request_shutdown of a teammate succeed; review_plan and
 *     shutdown_response decide exactly the request they may decide (and
 *     the store says so; an approved shutdown has ended the teammate)
 *     and nothing else; the gate on bob never lifts; edit_file of
 *     notes.txt succeeds exactly when old_text occurs once there and
 *     leaves the expected text; write_file of a plain new name succeeds
 *     and leaves exactly the content;
 *   - the sandbox: the directory above the working directory holds only
 *     work/ and outside/, outside/ holds only its secret file, unchanged;
 *     no path named in an input that did not exist before exists after
 *     the call unless it is inside the working directory; a failed write
 *     or edit leaves the working directory as it was (names, modes,
 *     contents; no parent directory that write_file made is left);
 *     what read_file returns is the text of a seed file, never the
 *     secret or the store; nothing new appears in the team's state
 *     folder (base/state/...), and no .huddle in the working directory.
 * ASan, UBSan and the leak checker watch the memory. With
 * FUZZ_TOOLS_VERBOSE set in the environment, each call is printed with
 * what was expected of it (for replaying an input).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/team.h"
#include "tools/mountns.h"
#include "tools/profile.h"
#include "tools/reaper.h"
#include "tools/tool.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_SECRET	"fuzz-secret-7f3a9c"	/* outside/secret.txt */
#define FUZZ_NOTES	"hello world\nhello again\none line\n"
#define FUZZ_INNER	"inner text\n"
#ifndef FUZZ_MAX_STORE
#define FUZZ_MAX_STORE	(32 * 1024 * 1024)	/* then a fresh team */
#endif

#define FUZZ_LEAD	0x1
#define FUZZ_MATE	0x2
#define FUZZ_BOTH	(FUZZ_LEAD | FUZZ_MATE)

/*
 * A tool's contract (DESIGN §4), written down here independently of
 * tools.c. Field kinds: 'S' required string, 's' optional string, 'B'
 * required boolean, 'b' optional boolean, 'i' optional whole number.
 */
struct fuzz_field {
	const char	*key;
	char		 kind;
};

struct fuzz_tool {
	const char		*name;
	unsigned		 who;
	int			 gated;		/* needs an approved plan */
	int			 refuse_only;	/* only inputs it must refuse */
	struct fuzz_field	 fields[5];
};

static const struct fuzz_tool fuzz_tools[] = {
	{ "read_file", FUZZ_BOTH, 0, 0,
	  { { "path", 'S' }, { "offset", 'i' }, { "limit", 'i' } } },
	{ "write_file", FUZZ_BOTH, 1, 0,
	  { { "path", 'S' }, { "content", 'S' } } },
	{ "edit_file", FUZZ_BOTH, 1, 0,
	  { { "path", 'S' }, { "old_text", 'S' }, { "new_text", 'S' } } },
	{ "send_message", FUZZ_BOTH, 0, 0,
	  { { "to", 'S' }, { "content", 'S' } } },
	{ "read_inbox", FUZZ_BOTH, 0, 0, { { NULL, 0 } } },
	{ "broadcast", FUZZ_LEAD, 0, 0, { { "content", 'S' } } },
	{ "list_teammates", FUZZ_LEAD, 0, 0, { { NULL, 0 } } },
	{ "request_shutdown", FUZZ_LEAD, 0, 0,
	  { { "teammate", 'S' }, { "reason", 's' } } },
	{ "review_plan", FUZZ_LEAD, 0, 0,
	  { { "request_id", 'S' }, { "approve", 'B' }, { "feedback", 's' } } },
	{ "shutdown_response", FUZZ_MATE, 0, 0,
	  { { "request_id", 'S' }, { "approve", 'B' }, { "reason", 's' } } },
	{ "submit_plan", FUZZ_MATE, 0, 1, { { "plan", 'S' } } },
	{ "bash", FUZZ_BOTH, 1, 1, { { "command", 'S' } } },
	{ "spawn_teammate", FUZZ_LEAD, 0, 1,
	  { { "name", 'S' }, { "role", 'S' }, { "prompt", 'S' },
	    { "plan_required", 'b' } } },
	{ "no_such_tool", 0, 0, 0, { { NULL, 0 } } },
};

#define FUZZ_NTOOLS	(sizeof fuzz_tools / sizeof *fuzz_tools)

/* The agents the target drives, and the members of the team. */
static const char *const fuzz_agent_names[] = { "lead", "alice", "bob" };
#define FUZZ_NAGENTS	3
#define FUZZ_BOB	2
static const char *const fuzz_members[] = { "lead", "alice", "bob", "carol" };
#define FUZZ_NMEMBERS	4

/* Files of a fresh working directory; a write to any other plain name
 * creates a new file. */
static const char *const fuzz_seed_names[] = { "notes.txt", "dir", "escape",
    "abs", "secret-link", "notes-link" };

struct fuzz_state {
	char		*base;		/* canonical temporary directory */
	char		*workdir;	/* base/work */
	char		*outside;	/* base/outside */
	char		*state;		/* base/state: --state-dir */
	char		*secret;	/* base/outside/secret.txt */
	char		*seeds;		/* the listing of a fresh workdir */
	struct team	*team;
	struct agent	*members[FUZZ_NAGENTS]; /* team_tool_member */
};

static struct fuzz_state fz;

/* The requests an input's magic ids stand for ("" when not opened). */
struct fuzz_ids {
	char	plan[PROTO_ID_SIZE];
	char	stop[PROTO_ID_SIZE];
	char	perm[PROTO_ID_SIZE];
	char	done[PROTO_ID_SIZE];
};

static void
fuzz_die(const char *what, const char *why)
{
	fprintf(stderr, "fuzz_tools: %s: %s\n", what, why ? why : "?");
	abort();
}

/* --- files ----------------------------------------------------------------- */

static void
fuzz_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) == EOF || fclose(f) == EOF)
		fuzz_die(path, strerror(errno));
}

/* The whole of a file (NUL-terminated; *len without the NUL), or NULL. */
static char *
fuzz_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (f == NULL)
		return NULL;
	do {
		buf = xgrow(buf, &cap, n + 4097, 1);
		got = fread(buf + n, 1, 4096, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int
fuzz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	return remove(path);
}

static void
fuzz_rmtree(const char *path)
{
	nftw(path, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Makes the files of a fresh working directory: plain files, a
 * directory, and symbolic links leading out (relative and absolute) and
 * in. */
static void
fuzz_seed(void)
{
	char *p;

	p = xasprintf("%s/notes.txt", fz.workdir);
	fuzz_put(p, FUZZ_NOTES);
	free(p);
	p = xasprintf("%s/dir", fz.workdir);
	if (mkdir(p, 0755) == -1)
		fuzz_die(p, strerror(errno));
	free(p);
	p = xasprintf("%s/dir/inner.txt", fz.workdir);
	fuzz_put(p, FUZZ_INNER);
	free(p);
	p = xasprintf("%s/escape", fz.workdir);
	if (symlink("../outside", p) == -1)
		fuzz_die(p, strerror(errno));
	free(p);
	p = xasprintf("%s/abs", fz.workdir);
	if (symlink(fz.outside, p) == -1)
		fuzz_die(p, strerror(errno));
	free(p);
	p = xasprintf("%s/secret-link", fz.workdir);
	if (symlink("../outside/secret.txt", p) == -1)
		fuzz_die(p, strerror(errno));
	free(p);
	p = xasprintf("%s/notes-link", fz.workdir);
	if (symlink("notes.txt", p) == -1)
		fuzz_die(p, strerror(errno));
	free(p);
}

/* Removes everything in the working directory but .huddle, then seeds. */
static void
fuzz_reset_files(void)
{
	DIR *d = opendir(fz.workdir);
	struct dirent *e;
	char *p;

	if (d == NULL)
		fuzz_die(fz.workdir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, ".huddle") == 0)
			continue;
		p = xasprintf("%s/%s", fz.workdir, e->d_name);
		fuzz_rmtree(p);
		free(p);
	}
	closedir(d);
	fuzz_seed();
}

struct fuzz_lines {
	char	**v;
	size_t	  n, cap;
};

static int
fuzz_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* FNV-1a of a file's bytes (0 when it cannot be read). */
static uint32_t
fuzz_hash(const char *path)
{
	char *text;
	size_t len, i;
	uint32_t h = 2166136261u;

	if ((text = fuzz_slurp(path, &len)) == NULL)
		return 0;
	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 16777619u;
	free(text);
	return h;
}

/* Adds one line per entry under dir (named rel): path, type, and size or
 * link target. .huddle at the top is left out. */
static void
fuzz_walk(const char *dir, const char *rel, struct fuzz_lines *l)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	char *p, *r, target[PATH_MAX];
	ssize_t n;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    (*rel == '\0' && strcmp(e->d_name, ".huddle") == 0))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		r = xasprintf("%s%s%s", rel, *rel ? "/" : "", e->d_name);
		l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
		if (lstat(p, &st) == -1)
			l->v[l->n++] = xasprintf("%s ?", r);
		else if (S_ISLNK(st.st_mode)) {
			n = readlink(p, target, sizeof target - 1);
			target[n < 0 ? 0 : n] = '\0';
			l->v[l->n++] = xasprintf("%s -> %s", r, target);
		} else if (S_ISDIR(st.st_mode)) {
			l->v[l->n++] = xasprintf("%s/", r);
			fuzz_walk(p, r, l);
		} else
			l->v[l->n++] = xasprintf("%s %o %lld %08x", r,
			    (unsigned)(st.st_mode & 07777),
			    (long long)st.st_size, fuzz_hash(p));
		free(r);
		free(p);
	}
	closedir(d);
}

/* The sorted listing of the working directory, one string. */
static char *
fuzz_listing(void)
{
	struct fuzz_lines l = { NULL, 0, 0 };
	char *s = NULL;
	size_t i, len = 0, cap = 0, n;

	fuzz_walk(fz.workdir, "", &l);
	if (l.n > 0)
		qsort(l.v, l.n, sizeof *l.v, fuzz_cmp_str);
	s = xgrow(s, &cap, 1, 1);
	for (i = 0; i < l.n; i++) {
		n = strlen(l.v[i]);
		s = xgrow(s, &cap, len + n + 2, 1);
		memcpy(s + len, l.v[i], n);
		len += n;
		s[len++] = '\n';
		free(l.v[i]);
	}
	s[len] = '\0';
	free(l.v);
	return s;
}

/* Whether dir holds exactly the names given (NULL-terminated; a name
 * ending in '*' stands for any one name it begins). */
static int
fuzz_dir_is(const char *dir, const char *const *names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t i, seen = 0, want = 0;
	int ok = 1;

	if (d == NULL)
		return 0;
	while (names[want] != NULL)
		want++;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		for (i = 0; i < want; i++) {
			size_t n = strlen(names[i]);

			if (strcmp(e->d_name, names[i]) == 0 || (n > 0 &&
			    names[i][n - 1] == '*' && strncmp(e->d_name,
			    names[i], n - 1) == 0))
				break;
		}
		if (i == want)
			ok = 0;
		seen++;
	}
	closedir(d);
	return ok && seen <= want;
}

/* The sandbox's walls still stand: nothing new next to the working
 * directory, nothing in outside/ touched, nothing new in the state
 * folder, no .huddle in the working directory. */
static void
fuzz_check_walls(void)
{
	static const char *const base[] = { "work", "outside", "state", NULL };
	static const char *const outside[] = { "secret.txt", NULL };
	/* The state folder also holds the disk's reserve, the commands'
	 * TMPDIR (tmp-XXXXXX), whose walls are the same, and the folder
	 * huddle keeps long outputs in (outputs: its own writing). */
	static const char *const state[] = { "team.db", "team.db-wal",
	    "team.db-shm", "lock", "workdir", "disk-reserve", "tmp-*",
	    "outputs", NULL };
	char *text, *dot;
	size_t len;

	if (!fuzz_dir_is(fz.base, base))
		fuzz_die("sandbox", "something appeared next to the workdir");
	if (!fuzz_dir_is(fz.outside, outside))
		fuzz_die("sandbox", "something appeared in outside/");
	if ((text = fuzz_slurp(fz.secret, &len)) == NULL ||
	    strcmp(text, FUZZ_SECRET "\n") != 0)
		fuzz_die("sandbox", "outside/secret.txt changed");
	free(text);
	if (!fuzz_dir_is(team_state_dir(fz.team), state))
		fuzz_die("sandbox", "something appeared in the state folder");
	dot = xasprintf("%s/.huddle", fz.workdir);
	if (access(dot, F_OK) == 0)
		fuzz_die("sandbox", ".huddle appeared in the workdir");
	free(dot);
}

/* Whether read_file's text is lines of a seed file (before any note),
 * or the note that an offset is past the end of one. */
static int
fuzz_read_a_seed(const char *text)
{
	const char *note = strstr(text, "\n[");
	size_t n = note != NULL ? (size_t)(note - text) + 1 : strlen(text);

	if (strncmp(text, "[the file has ", 14) == 0)
		return 1;
	return n > 0 && (memmem(FUZZ_NOTES, strlen(FUZZ_NOTES), text, n) !=
	    NULL || memmem(FUZZ_INNER, strlen(FUZZ_INNER), text, n) != NULL);
}

/* --- the team ---------------------------------------------------------------- */

static void
fuzz_team_close(void)
{
	size_t i;

	for (i = 0; i < FUZZ_NAGENTS; i++) {
		if (fz.members[i] != NULL)
			team_tool_member_free(fz.members[i]);
		fz.members[i] = NULL;
	}
	team_free(fz.team);
	fz.team = NULL;
}

/* A new team in a fresh working directory. */
static void
fuzz_team_open(void)
{
	struct team_options o;
	char *err = NULL;
	size_t i;

	fuzz_rmtree(fz.workdir);
	fuzz_rmtree(fz.state);
	if (mkdir(fz.workdir, 0700) == -1)
		fuzz_die(fz.workdir, strerror(errno));
	fuzz_seed();
	team_options_defaults(&o);
	o.workdir = fz.workdir;
	o.state_base = fz.state;
	if ((fz.team = team_open(&o, &err)) == NULL ||
	    roster_add(team_store(fz.team), "alice", "coder", "", 0,
	    &err) == -1 ||
	    roster_add(team_store(fz.team), "bob", "refactorer", "", 1,
	    &err) == -1 ||
	    roster_add(team_store(fz.team), "carol", "planner", "", 1,
	    &err) == -1)
		fuzz_die("team", err);
	for (i = 0; i < FUZZ_NAGENTS; i++)
		if ((fz.members[i] = team_tool_member(fz.team,
		    fuzz_agent_names[i], &err)) == NULL)
			fuzz_die(fuzz_agent_names[i], err);
}

static void
fuzz_cleanup(void)
{
	fuzz_team_close();
	fuzz_rmtree(fz.base);
	free(fz.base);
	free(fz.workdir);
	free(fz.outside);
	free(fz.state);
	free(fz.secret);
	free(fz.seeds);
}

static void
fuzz_init(void)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	char *templ, real[PATH_MAX];

	/* tmpfs when there is one: write_file syncs every file. */
	if (tmp == NULL || *tmp == '\0')
		tmp = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
		    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	templ = xasprintf("%s/huddle-fuzz-XXXXXX", tmp);
	if (mkdtemp(templ) == NULL || realpath(templ, real) == NULL)
		fuzz_die(templ, strerror(errno));
	free(templ);
	fz.base = xstrdup(real);
	fz.workdir = xasprintf("%s/work", fz.base);
	fz.outside = xasprintf("%s/outside", fz.base);
	fz.secret = xasprintf("%s/secret.txt", fz.outside);
	fz.state = xasprintf("%s/state", fz.base);
	if (mkdir(fz.outside, 0700) == -1)
		fuzz_die(fz.outside, strerror(errno));
	fuzz_put(fz.secret, FUZZ_SECRET "\n");
	fuzz_team_open();
	fz.seeds = fuzz_listing();
	atexit(fuzz_cleanup);
}

/* Whether a member has terminated (an approved shutdown ends its
 * target). */
static int
fuzz_anyone_ended(void)
{
	struct member *m;
	size_t n, i;
	int ended = 0;

	n = roster_list(team_store(fz.team), &m);
	for (i = 0; i < n; i++)
		ended |= m[i].status == MEMBER_TERMINATED;
	member_free_array(m, n);
	return ended;
}

/* A fresh team when a member has terminated, or when the store has grown
 * past FUZZ_MAX_STORE. */
static void
fuzz_maybe_renew(void)
{
	struct stat st;
	char *p;
	off_t total = 0;

	if (fuzz_anyone_ended()) {
		fuzz_team_close();
		fuzz_team_open();
		return;
	}

	p = xasprintf("%s/team.db", team_state_dir(fz.team));
	if (stat(p, &st) == 0)
		total += st.st_size;
	free(p);
	p = xasprintf("%s/team.db-wal", team_state_dir(fz.team));
	if (stat(p, &st) == 0)
		total += st.st_size;
	free(p);
	if (total > FUZZ_MAX_STORE) {
		fuzz_team_close();
		fuzz_team_open();
	}
}

/* --- the input ----------------------------------------------------------------- */

static int
fuzz_is_member(const char *name)
{
	size_t i;

	for (i = 0; i < FUZZ_NMEMBERS; i++) {
		if (strcmp(name, fuzz_members[i]) == 0)
			return 1;
	}
	return 0;
}

/* Builds an object from text that is not JSON: newline-separated pieces
 * fill the string fields in order; booleans get `approve`, numbers the
 * length of their piece less two (so sometimes negative). NULL when a
 * piece is not valid UTF-8. */
static json_t *
fuzz_from_text(const struct fuzz_tool *t, const char *p, size_t len,
    int approve)
{
	const struct fuzz_field *f;
	json_t *in = json_object(), *v;
	const char *end = p + len, *nl;
	size_t n;

	for (f = t->fields; f < t->fields + 5 && f->key != NULL; f++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		if (f->kind == 'B' || f->kind == 'b')
			v = json_boolean(approve);
		else if (f->kind == 'i')
			v = json_integer((json_int_t)n - 2);
		else if ((v = json_stringn(p, n)) == NULL) {
			json_decref(in);
			return NULL;
		}
		json_object_set_new(in, f->key, v);
		if (f->kind == 'S' || f->kind == 's' || f->kind == 'i')
			p = nl != NULL ? nl + 1 : end;
	}
	return in;
}

static void
fuzz_open(enum req_type type, const char *from, const char *to,
    char id[PROTO_ID_SIZE])
{
	char *err = NULL;

	if (protocol_request(team_protocol(fz.team), type, from, to, "fuzz",
	    id, &err) == -1)
		fuzz_die("request", err);
}

/* Replaces the magic request ids and path prefixes (see the top). */
static void
fuzz_substitute(json_t *in, const char *name, struct fuzz_ids *ids)
{
	json_t *v = json_object_get(in, "request_id");
	const char *s = json_string_value(v), *mate;
	char *err = NULL, *path;

	if (s != NULL && json_string_length(v) == 4) {
		mate = strcmp(name, ROSTER_LEAD) == 0 ? "alice" : name;
		if (strcmp(s, "PLAN") == 0) {
			fuzz_open(REQ_PLAN_APPROVAL, "carol", ROSTER_LEAD,
			    ids->plan);
			json_string_set(v, ids->plan);
		} else if (strcmp(s, "STOP") == 0) {
			fuzz_open(REQ_SHUTDOWN, ROSTER_LEAD, mate, ids->stop);
			json_string_set(v, ids->stop);
		} else if (strcmp(s, "PERM") == 0) {
			fuzz_open(REQ_PERMISSION, mate, ROSTER_LEAD,
			    ids->perm);
			json_string_set(v, ids->perm);
		} else if (strcmp(s, "DONE") == 0) {
			fuzz_open(REQ_PLAN_APPROVAL, "carol", ROSTER_LEAD,
			    ids->done);
			if (protocol_cancel(team_protocol(fz.team), ids->done,
			    "fuzz", &err) == -1)
				fuzz_die("cancel", err);
			json_string_set(v, ids->done);
		}
	}

	v = json_object_get(in, "path");
	s = json_string_value(v);
	if (s != NULL && s[0] == '@' && (s[1] == 'W' || s[1] == 'B')) {
		path = xasprintf("%s%s", s[1] == 'W' ? fz.workdir : fz.base,
		    s + 2);
		json_string_set(v, path);
		free(path);
	}
}

/* Whether every field of the input passes the tool's checks. */
static int
fuzz_fields_ok(const struct fuzz_tool *t, json_t *in)
{
	const struct fuzz_field *f;
	json_t *v;
	int absent;

	for (f = t->fields; f < t->fields + 5 && f->key != NULL; f++) {
		v = json_object_get(in, f->key);
		absent = v == NULL || json_is_null(v);
		switch (f->kind) {
		case 'S':
			if (absent || !json_is_string(v))
				return 0;
			break;
		case 's':
			if (!absent && !json_is_string(v))
				return 0;
			break;
		case 'B':
			if (absent || !json_is_boolean(v))
				return 0;
			break;
		case 'b':
			if (!absent && !json_is_boolean(v))
				return 0;
			break;
		case 'i':
			if (!absent && (!json_is_integer(v) ||
			    json_integer_value(v) < 0))
				return 0;
			break;
		}
	}
	return 1;
}

static const char *
fuzz_str(json_t *in, const char *key)
{
	return json_string_value(json_object_get(in, key));
}

/* A plain new file name: [a-z0-9_-]{1,32}, not one of the seeds. */
static int
fuzz_plain_new_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 32 || strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "0123456789_-") != n)
		return 0;
	for (i = 0; i < sizeof fuzz_seed_names / sizeof *fuzz_seed_names;
	    i++) {
		if (strcmp(s, fuzz_seed_names[i]) == 0)
			return 0;
	}
	return 1;
}

/* How often needle occurs in hay, overlaps counted. */
static size_t
fuzz_count(const char *hay, const char *needle)
{
	const char *p = hay;
	size_t n = 0;

	while ((p = strstr(p, needle)) != NULL) {
		n++;
		p++;
	}
	return n;
}

enum fuzz_expect {
	FUZZ_ANY,
	FUZZ_OK,
	FUZZ_ERROR
};

/* --- checks after the call ------------------------------------------------------ */

static enum req_status
fuzz_status(const char *id, char **decided_by)
{
	struct request *r = protocol_get(team_protocol(fz.team), id);
	enum req_status s;

	if (r == NULL)
		fuzz_die("request vanished", id);
	s = r->status;
	if (decided_by != NULL)
		*decided_by = xstrdup_or_null(r->decided_by);
	request_free(r);
	return s;
}

/* The magic requests after the call: the one a successful decision was
 * about is decided as asked and by the agent; every other one is as it
 * was. */
static void
fuzz_check_requests(const struct fuzz_ids *ids, const char *decided,
    int approve, const char *by)
{
	const char *const open[] = { ids->plan, ids->stop, ids->perm };
	enum req_status s;
	char *who = NULL;
	size_t i;

	for (i = 0; i < 3; i++) {
		if (*open[i] == '\0')
			continue;
		s = fuzz_status(open[i], &who);
		if (decided != NULL && strcmp(open[i], decided) == 0) {
			if (s != (approve ? REQ_APPROVED : REQ_REJECTED) ||
			    who == NULL || strcmp(who, by) != 0)
				fuzz_die("decision", "not the one made");
		} else if (s != REQ_PENDING)
			fuzz_die("decision", "a refused answer decided");
		free(who);
		who = NULL;
	}
	if (*ids->done != '\0' && fuzz_status(ids->done, NULL) !=
	    REQ_CANCELLED)
		fuzz_die("decision", "a late answer changed a request");
}

/* Cancels every request still pending, so that the next input starts
 * with none. */
static void
fuzz_cancel_pending(void)
{
	struct protocol *p = team_protocol(fz.team);
	struct request *list;
	char *err = NULL;
	size_t n, i;

	n = protocol_list(p, 0, &list);
	for (i = 0; i < n; i++) {
		if (protocol_cancel(p, list[i].id, "fuzz", &err) == -1)
			fuzz_die("cancel", err);
	}
	request_free_array(list, n);
}

/* If `path` named nothing before the call, it may name something after
 * only inside the working directory. */
static void
fuzz_check_created(const char *full, int existed)
{
	struct stat st;
	char real[PATH_MAX];
	size_t wlen = strlen(fz.workdir);

	if (full == NULL || existed || lstat(full, &st) == -1)
		return;
	if (realpath(full, real) == NULL || strncmp(real, fz.workdir,
	    wlen) != 0 || real[wlen] != '/')
		fuzz_die("sandbox", "a file was made outside the workdir");
}

/*
 * Started again as huddle would be — a command's reaper, or the holder of
 * a place's namespaces (here the target is its own reaper: no
 * huddle-reaper lies beside it): be that, never the fuzzer, or each
 * holder would fuzz, and start holders of its own.
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (*argc > 1 && strcmp((*argv)[1], REAPER_ARG) == 0)
		exit(reaper_main(*argc, *argv));
	if (*argc > 1 && strcmp((*argv)[1], MOUNTNS_HOLDER_ARG) == 0)
		exit(mountns_holder_main(*argc, *argv));
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct fuzz_tool *t;
	struct tool_output out = { 0 };
	struct fuzz_ids ids = { "", "", "", "" };
	struct agent *a;
	struct member *bob, *who;
	const char *name;
	size_t member;
	int lead;
	struct stat st;
	enum fuzz_expect expect = FUZZ_ANY;
	const char *text, *path, *s, *decided = NULL;
	char *full = NULL, *after, *file, *want;
	size_t len, i;
	json_t *in;
	int approve, mine, bad, existed = 0, files;

	if (fz.base == NULL)
		fuzz_init();
	if (size < 2)
		return 0;
	t = &fuzz_tools[data[0] % FUZZ_NTOOLS];
	member = (data[1] & 0x3) % FUZZ_NAGENTS;
	name = fuzz_agent_names[member];
	lead = strcmp(name, ROSTER_LEAD) == 0;
	a = fz.members[member];
	approve = (data[1] >> 2) & 1;
	text = (const char *)data + 2;
	len = size - 2;

	in = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	if (in == NULL && !(data[1] & 0x8))
		in = fuzz_from_text(t, text, len, approve);
	if (json_is_object(in))
		fuzz_substitute(in, name, &ids);

	/* What the call must give, as far as the input and the team's state
	 * decide it. */
	mine = (t->who & (lead ? FUZZ_LEAD : FUZZ_MATE)) != 0;
	bad = !mine || !json_is_object(in) || (t->gated &&
	    member == FUZZ_BOB) || !fuzz_fields_ok(t, in);
	if (bad)
		expect = FUZZ_ERROR;
	else if (t->refuse_only) {
		/* submit_plan refuses an empty plan; any other valid input
		 * would start something. */
		s = fuzz_str(in, "plan");
		if (strcmp(t->name, "submit_plan") != 0 || *s != '\0')
			goto done;
		expect = FUZZ_ERROR;
	} else if (strcmp(t->name, "send_message") == 0) {
		s = fuzz_str(in, "to");
		expect = fuzz_is_member(s) && strcmp(s, name) != 0 ?
		    FUZZ_OK : FUZZ_ERROR;
	} else if (strcmp(t->name, "request_shutdown") == 0) {
		s = fuzz_str(in, "teammate");
		expect = fuzz_is_member(s) && strcmp(s, ROSTER_LEAD) != 0 ?
		    FUZZ_OK : FUZZ_ERROR;
	} else if (strcmp(t->name, "review_plan") == 0 ||
	    strcmp(t->name, "shutdown_response") == 0) {
		s = fuzz_str(in, "request_id");
		decided = t->name[0] == 'r' ? ids.plan : ids.stop;
		expect = *decided != '\0' && strcmp(s, decided) == 0 ?
		    FUZZ_OK : FUZZ_ERROR;
		approve = json_is_true(json_object_get(in, "approve"));
	} else if (strcmp(t->name, "read_inbox") == 0 ||
	    strcmp(t->name, "list_teammates") == 0 ||
	    strcmp(t->name, "broadcast") == 0)
		expect = FUZZ_OK;
	else if (strcmp(t->name, "write_file") == 0 &&
	    fuzz_plain_new_name(fuzz_str(in, "path")))
		expect = FUZZ_OK;
	else if (strcmp(t->name, "edit_file") == 0 &&
	    strcmp(fuzz_str(in, "path"), "notes.txt") == 0) {
		s = fuzz_str(in, "old_text");
		expect = *s != '\0' && fuzz_count(FUZZ_NOTES, s) == 1 ?
		    FUZZ_OK : FUZZ_ERROR;
	}

	/* Where a file tool could leave something. */
	files = strcmp(t->name, "write_file") == 0 ||
	    strcmp(t->name, "edit_file") == 0;
	path = json_is_object(in) ? fuzz_str(in, "path") : NULL;
	if (files && path != NULL) {
		full = path[0] == '/' ? xstrdup(path) :
		    xasprintf("%s/%s", fz.workdir, path);
		existed = lstat(full, &st) == 0;
	}

	/* bash of bob's must be refused by his gate; make sure the gate is
	 * still closed before a fuzzed command could run. */
	if (t->refuse_only && member == FUZZ_BOB) {
		bob = roster_get(team_store(fz.team), "bob");
		if (bob == NULL || bob->plan_approved)
			fuzz_die("gate", "bob's plan is approved");
		member_free(bob);
	}

	team_tool_call(a, t->name, in, &out);

	if (getenv("FUZZ_TOOLS_VERBOSE") != NULL)
		fprintf(stderr, "%s by %s, expect %s: %s: %s\n", t->name,
		    name, expect == FUZZ_OK ? "ok" : expect == FUZZ_ERROR ?
		    "error" : "any", out.is_error ? "error" : "ok",
		    out.text ? out.text : "(null)");
	if (out.text == NULL || !utf8_valid(out.text))
		fuzz_die(t->name, "no text, or text that is not UTF-8");
	if ((expect == FUZZ_ERROR && !out.is_error) ||
	    (expect == FUZZ_OK && out.is_error))
		fuzz_die(t->name, out.text);
	/* The only files read_file can reach are the two seeds with text
	 * (notes-link leads to notes.txt). */
	if (strcmp(t->name, "read_file") == 0 && !out.is_error &&
	    !fuzz_read_a_seed(out.text))
		fuzz_die("sandbox", "read_file read something else");

	fuzz_check_requests(&ids, out.is_error ? NULL : decided, approve,
	    name);
	if (!out.is_error && approve &&
	    strcmp(t->name, "shutdown_response") == 0) {
		who = roster_get(team_store(fz.team), name);
		if (who == NULL || who->status != MEMBER_TERMINATED)
			fuzz_die(name, "an approved shutdown left it live");
		member_free(who);
	}
	bob = roster_get(team_store(fz.team), "bob");
	if (bob == NULL || bob->plan_approved)
		fuzz_die("gate", "bob's plan is approved");
	member_free(bob);

	if (files) {
		fuzz_check_walls();
		fuzz_check_created(full, existed);
		if (!out.is_error && expect == FUZZ_OK) {
			/* The file holds exactly what was asked. */
			file = xasprintf("%s/%s", fz.workdir, path);
			if (t->name[0] == 'w')
				want = xstrdup(fuzz_str(in, "content"));
			else {
				s = strstr(FUZZ_NOTES, fuzz_str(in,
				    "old_text"));
				want = xasprintf("%.*s%s%s",
				    (int)(s - FUZZ_NOTES), FUZZ_NOTES,
				    fuzz_str(in, "new_text"), s +
				    strlen(fuzz_str(in, "old_text")));
			}
			if ((after = fuzz_slurp(file, &i)) == NULL ||
			    i != strlen(want) || strcmp(after, want) != 0)
				fuzz_die(t->name, "the file is not as asked");
			free(after);
			free(want);
			free(file);
		}
		/* A failed call changes nothing, not even the parent
		 * directories a failed write_file made. */
		if (out.is_error) {
			after = fuzz_listing();
			if (strcmp(fz.seeds, after) != 0)
				fuzz_die(t->name, "a failed call changed the "
				    "files");
			free(after);
		} else
			fuzz_reset_files();
	}

done:
	free(full);
	tool_output_clear(&out);
	json_decref(in);

	/* The next input starts from the same state. */
	fuzz_cancel_pending();
	event_free_list(evq_take(team_events(fz.team)));
	fuzz_maybe_renew();
	return 0;
}
