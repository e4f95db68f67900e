/*
 * A person's home for the unit tests of the sandbox's profiles: in a new
 * test folder, a home holding a private key and, inside it, a working
 * directory holding an ordinary file; and commands run from a profile's
 * place through the reaper.
 */
#ifndef HUDDLE_TESTS_HOMEFIX_H
#define HUDDLE_TESTS_HOMEFIX_H

struct profile;

/* Makes a new canonical test folder *top, the home *top/home with
 * .ssh/id_rsa ("PRIVATE-KEY-SENTINEL"), and the working directory
 * *wd, home/project, with notes.txt ("ordinary"); hf_remove undoes it. */
void hf_make(char **top, char **home, char **wd);

/* Removes the test folder and frees the three paths hf_make made. */
void hf_remove(char *top, char *home, char *wd);

/* Runs command from p's place through the reaper program, for 20 s at
 * the most; returns its output (free it). */
char *hf_run(const struct profile *p, const char *program,
    const char *command);

#endif
