/*
 * The person's pager on a file huddle keeps (a whole output, C-p): run as
 * the terminal's foreground job of its own, while the team goes on.
 */
#ifndef HUDDLE_UI_PAGER_H
#define HUDDLE_UI_PAGER_H

/*
 * Shows the regular file `path` in $PAGER (the person's shell words, as
 * git reads them), else less, and returns when it ends. The file is the
 * pager's standard input, opened here without following a link (a FIFO
 * or a device is refused), and the pager runs in the file's folder, not
 * in the working tree. It is spawned as a kept child (tools/kept.h: no
 * sweep for escaped processes ends it) in a process group of its own
 * that has the terminal, so C-c and C-z there are the pager's. While it
 * runs, tick(ud) is called about once a second. The caller gives the
 * terminal up first (endwin) and takes it back after. Returns NULL, or a
 * sentence saying why it could not be shown.
 */
const char *pager_show(const char *path, void (*tick)(void *), void *ud);

#endif
