"""Drives a full-screen program inside a real terminal: tmux.

Each Screen starts its own private tmux server (`tmux -L <unique name>
-f /dev/null`), so tests never touch a user's tmux, ignore ~/.tmux.conf and
can run in parallel.  The server holds one detached session of the given
size whose only pane runs the command under test.  Tests type with
send_keys()/send_text(), click with click(), resize with resize(), and read
the screen with text()/rows() -- always by waiting for a condition with a
deadline (wait_for, wait_gone, exit_status), never with fixed sleeps.

    with Screen([HUDDLE, "--workdir", d], env={"ANTHROPIC_API_KEY": "k"}) as s:
        s.wait_for("huddle")             # wait for the UI before typing:
        s.send_text("hello")             # keys sent earlier may reach a
        s.send_keys("Enter")             # terminal still in cooked mode
        s.wait_for(lambda t: "hello" in region(t, 0, 80, 40, 40))
        s.send_keys("C-c")
        assert s.exit_status() == 0

The command runs under a small wrapper shell:

    sh -c 'trap : INT QUIT; "$@"; echo "[exited $?]"; exec sleep 86400' sh COMMAND...

so when the program exits, its status appears on the screen as
"[exited N]" (128+N if a signal killed it), the pane stays alive and the
final screen can still be captured; exit_status() reads that line.  The
trap keeps the wrapper itself alive when C-c reaches a program that is
in cooked mode (trapped signals are reset to their defaults in the
program, so it still gets SIGINT normally).  As a backstop tmux's
remain-on-exit is on: if the wrapper dies anyway, the pane stays (tmux
writes "Pane is dead" on its last row) and exit_status() returns tmux's
record of the status.

The terminal: TERM inside is tmux-256color (falling back to
screen-256color when that terminfo entry is missing, or whatever `term`
says), because that is the terminal tmux emulates -- with
TERM=xterm-256color curses would not recognise the Home and End keys tmux
sends (ESC[1~ and ESC[4~, xterm's terminfo says ESC OH and ESC OF).  The
environment is the test's own plus LANG=LC_ALL=C.UTF-8 plus `env`, without
TMUX, COLUMNS and LINES (stale COLUMNS/LINES override the real size in
ncurses and would break resizing).  The status line is off: the pane is
the whole cols x rows window.
"""

import atexit
import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unicodedata
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "integration"))
from procs import proc_stats  # noqa: E402
from results import Results  # noqa: E402,F401 (the tests import it from here)

POLL = 0.025            # seconds between screen captures while waiting
SETTLE = 0.5            # at most this long for a frame to arrive whole
SETTLE_POLL = 0.005     # between the captures that see it whole
TMUX = shutil.which("tmux")

# Wrapper around the command under test; see the module docstring.
WRAPPER = 'trap : INT QUIT; "$@"; echo "[exited $?]"; exec sleep 86400'
EXITED = re.compile(r"\[exited (\d+)\]")

# Key names send_keys accepts (tmux's own names, compared case-insensitively
# as tmux does), optionally with modifiers: C-x, M-x, S-x.  Anything else
# raises, rather than being typed as text the way tmux would silently do.
KEY_NAMES = {
    "enter", "tab", "btab", "space", "bspace", "escape",
    "up", "down", "left", "right", "home", "end",
    "ic", "insert", "dc", "delete",
    "ppage", "pageup", "pgup", "npage", "pagedown", "pgdn",
} | {"f%d" % i for i in range(1, 13)}
MODIFIED = re.compile(r"^(?:[CMS]-)+(.+)$", re.IGNORECASE)

_counter = itertools.count()
_live = set()           # Screens started and not yet closed


def tmux_available():
    return TMUX is not None


def _have_terminfo(name):
    try:
        return subprocess.run(["infocmp", name], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    except FileNotFoundError:          # no infocmp: look for the file
        dirs = [os.environ.get("TERMINFO"), os.path.expanduser("~/.terminfo"),
                "/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo"]
        return any(d and (os.path.exists(os.path.join(d, name[0], name)) or
                          os.path.exists(os.path.join(d, "%x" % ord(name[0]), name)))
                   for d in dirs)


_default_term = None


def default_term():
    """tmux-256color if this system has its terminfo, else screen-256color;
    $HUDDLE_SCREEN_TERM, when set, names another (xterm-256color, say)."""
    global _default_term
    if _default_term is None and os.environ.get("HUDDLE_SCREEN_TERM"):
        _default_term = os.environ["HUDDLE_SCREEN_TERM"]
    if _default_term is None:
        _default_term = next((t for t in ("tmux-256color", "screen-256color")
                              if _have_terminfo(t)), "screen")
    return _default_term


SEP = object()          # separates commands in one tmux invocation


def _arg(s):
    """Protects one tmux argument: tmux takes an argument ending in ';' as
    a command separator unless the ';' is escaped with a backslash."""
    if s is SEP:
        return ";"
    return s[:-1] + "\\;" if s.endswith(";") else s


def char_width(c):
    """Display columns of one character: 2 for East Asian wide and
    full-width, 0 for combining marks and format characters, else 1."""
    if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def display_width(s):
    return sum(char_width(c) for c in s)


def region(text, top, left, height, width):
    """Cuts the rectangle of `height` rows from row `top` and `width`
    display columns from column `left` (all 0-based) out of a captured
    screen (a string as text() returns it, or a list of rows).

    Columns count display cells: wide characters take two.  Half of a
    wide character cut by an edge becomes a space.  Returns the rows
    joined with newlines, each with trailing spaces removed, always
    `height` of them (rows beyond the screen are empty).
    """
    lines = text.split("\n") if isinstance(text, str) else list(text)
    right = left + width
    out = []
    for r in range(top, top + height):
        line = lines[r] if 0 <= r < len(lines) else ""
        cells = []
        col = 0
        kept = False            # whether the previous base character was kept
        for c in line:
            w = char_width(c)
            if w == 0:
                if kept:
                    cells.append(c)
                continue
            start, end = col, col + w
            col = end
            if start >= right:
                break
            kept = start >= left and end <= right
            if kept:
                cells.append(c)
            elif end > left:        # a wide character cut by an edge
                cells.append(" " * (min(end, right) - max(start, left)))
        out.append("".join(cells).rstrip())
    return "\n".join(out)


def _dump(text):
    rows = text.split("\n")
    width = max([display_width(r) for r in rows] + [0])
    bar = "+" + "-" * max(width, 1) + "+"
    return "\n".join([bar] + ["|%s%s|" % (r, " " * (width - display_width(r)))
                              for r in rows] + [bar])


class Screen:
    """A tmux session running one command in a terminal of a given size.

    command: a list (argv, run directly) or a string (run with sh -c).
    env: variables to set on top of the test's environment; a value of
    None removes that variable.  term: TERM inside (default_term()).
    """

    def __init__(self, command, env=None, cols=120, rows=40, cwd=None, term=None,
                 settle=False):
        """settle: a wait returns the screen only once the frame that
        met it has arrived whole (see _settled), for programs that draw
        large frames; a little slower."""
        if isinstance(command, str):
            command = ["sh", "-c", command]
        self.command = list(command)
        self.settle = settle
        self.cols, self.rows_count = cols, rows
        self.cwd = cwd or os.getcwd()
        self.term = term or default_term()
        self.socket = "huddle-screen-%d-%d-%s" % (os.getpid(), next(_counter),
                                                  uuid.uuid4().hex[:8])
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("TMUX", "TMUX_PANE", "COLUMNS", "LINES")}
        self.env.update({"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
                         "TERM": "xterm-256color"})   # the tmux client's own
        for k, v in (env or {}).items():
            if v is None:
                self.env.pop(k, None)
            else:
                self.env[k] = str(v)
        self.pane = None            # tmux pane id, e.g. "%0"
        self.pid = None             # the wrapper shell; leads its process group
        self.socket_path = None
        self.last = ""              # the last screen captured

    # --- lifetime ---------------------------------------------------------

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
        return False

    def _tmux(self, *args, check=True):
        if TMUX is None:
            raise RuntimeError("tmux is not installed")
        p = subprocess.run([TMUX, "-L", self.socket, "-f", "/dev/null", "-u"] +
                           [_arg(a) for a in args], env=self.env, cwd=self.cwd,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=10)
        if check and p.returncode != 0:
            raise AssertionError("tmux %s failed (status %d): %s"
                                 % (args[0], p.returncode,
                                    p.stderr.decode(errors="replace").strip()))
        return p.stdout.decode("utf-8", errors="replace")

    def start(self):
        """Starts the private server and the session; returns self."""
        opts = [("-g", "default-terminal", self.term),
                ("-g", "status", "off"),
                ("-gw", "remain-on-exit", "on"),
                ("-g", "history-limit", "1000"),
                ("-sg", "escape-time", "0")]
        args = ["start-server"]
        for scope, name, value in opts:
            args += [SEP, "set-option", scope, name, value]
        args += [SEP, "new-session", "-d", "-s", "main", "-x", str(self.cols),
                 "-y", str(self.rows_count), "-c", self.cwd, "-P", "-F",
                 "#{pane_id} #{pane_pid} #{socket_path}",
                 "sh", "-c", WRAPPER, "sh"] + self.command
        _live.add(self)
        try:
            out = self._tmux(*args).split()
            self.pane, self.pid, self.socket_path = out[0], int(out[1]), out[2]
            self._wait_size(self.cols, self.rows_count)
        except BaseException:
            self.close()
            raise
        return self

    def close(self):
        """Kills the server (and with it the program); safe to call twice."""
        if self not in _live:
            return
        _live.discard(self)
        self._tmux("kill-server", check=False)
        if self.pid is not None:
            # The pty is gone, but a program that ignores SIGHUP may linger.
            deadline = time.monotonic() + 2
            while self._group_alive() and time.monotonic() < deadline:
                time.sleep(0.01)
            if self._group_alive():
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except OSError:
                    pass
        if self.socket_path:
            try:
                os.unlink(self.socket_path)   # tmux leaves it behind
            except OSError:
                pass

    def _group_alive(self):
        """Whether any live (non-zombie) process is left in the wrapper's
        process group; zombies may wait a while for init to reap them."""
        if not os.path.isdir("/proc/self"):
            try:
                os.killpg(self.pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                pass
            return True
        return any(int(fields[2]) == self.pid and fields[0] not in "ZX"
                   for _, fields in proc_stats())

    # --- reading the screen -------------------------------------------------

    def text(self, escapes=False):
        """The visible screen, one line per row (trailing spaces trimmed).
        escapes=True keeps the colour and attribute escape sequences."""
        args = ["capture-pane", "-p", "-t", self.pane]
        if escapes:
            args.insert(2, "-e")
        out = self._tmux(*args)
        if out.endswith("\n"):
            out = out[:-1]
        if not escapes:
            self.last = out
        return out

    def rows(self):
        return self.text().split("\n")

    def info(self, fmt):
        """Expands a tmux format for the pane, e.g. '#{pane_width}'."""
        return self._tmux("display-message", "-p", "-t", self.pane, fmt).rstrip("\n")

    def cursor(self):
        """The cursor position as (col, row), 0-based."""
        x, y = self.info("#{cursor_x} #{cursor_y}").split()
        return int(x), int(y)

    def cursor_visible(self):
        return self.info("#{cursor_flag}") == "1"

    def size(self):
        """The pane's (cols, rows)."""
        w, h = self.info("#{pane_width} #{pane_height}").split()
        return int(w), int(h)

    # --- waiting --------------------------------------------------------------

    def _fail(self, message):
        raise AssertionError("%s; the screen:\n%s" % (message, _dump(self.last)))

    def wait_for(self, cond, timeout=10, what=None):
        """Polls the screen until cond holds; returns the screen text.

        cond: a substring, a compiled regular expression (searched), or a
        function of the screen text.  On timeout raises AssertionError
        showing the last screen."""
        if isinstance(cond, str):
            test, what = (lambda t: cond in t), what or repr(cond)
        elif hasattr(cond, "search"):
            test, what = cond.search, what or "/%s/" % cond.pattern
        else:
            test = cond
            what = what or getattr(cond, "__name__", "a condition")
        deadline = time.monotonic() + timeout
        while True:
            t = self.text()
            if test(t):
                return self._settled(t, test) if self.settle else t
            if time.monotonic() >= deadline:
                self._fail("timed out after %.1f s waiting for %s" % (timeout, what))
            time.sleep(POLL)

    def _settled(self, t, test):
        """The screen once the frame that made test hold is whole.

        The terminal takes a frame in pieces (a pty passes a few KiB at
        a time), so a capture may show a frame's upper rows new and its
        lower rows old. Captures again until two in a row agree (no
        output between them), for at most SETTLE seconds, and returns
        the last in which test still holds: a condition that was only
        true for a moment is still seen."""
        until = time.monotonic() + SETTLE
        while time.monotonic() < until:
            time.sleep(SETTLE_POLL)
            u = self.text()
            if u == t or not test(u):
                break
            t = u
        return t

    def wait_gone(self, substring, timeout=10):
        """Waits until substring is no longer on the screen."""
        return self.wait_for(lambda t: substring not in t, timeout,
                             "%r to disappear" % substring)

    def exit_status(self, timeout=10):
        """Waits for the program to exit; returns its status (128+N for
        signal N).  Reads the wrapper's "[exited N]" line, or tmux's record
        if the wrapper itself died."""
        deadline = time.monotonic() + timeout
        settle = time.monotonic() + 0.5
        while True:
            found = EXITED.findall(self.text())
            if found:
                return int(found[-1])
            dead, status, sig = (self.info("#{pane_dead}|#{pane_dead_status}|"
                                           "#{pane_dead_signal}").split("|"))
            if dead == "1":
                if sig:
                    return 128 + int(sig)
                # tmux can mark the pane dead a moment before it records
                # how it died: give the signal a little time to show.
                if status and status != "0" or time.monotonic() >= settle:
                    return int(status or 0)
            else:
                settle = time.monotonic() + 0.5
            if time.monotonic() >= deadline:
                self._fail("the program did not exit within %.1f s" % timeout)
            time.sleep(POLL)

    # --- typing -------------------------------------------------------------

    def send_keys(self, *keys):
        """Sends named keys, in order: Enter, Tab, BTab (Shift-Tab),
        Escape, Space, BSpace, Up, Down, Left, Right, Home, End, PageUp
        (PPage), PageDown (NPage), IC, DC, F1..F12, single characters, and
        any of these with C-, M- or S- in front (C-c, C-l, M-x).  Use
        send_text for text.  A program reading Escape followed at once by
        another key may take the pair for an Alt- key: send Escape alone
        and wait for its effect first."""
        for k in keys:
            base = MODIFIED.match(k)
            base = base.group(1) if base else k
            if len(base) != 1 and base.lower() not in KEY_NAMES:
                raise ValueError("unknown key name %r (use send_text for text)" % k)
        self._tmux("send-keys", "-t", self.pane, "--", *keys)

    def send_text(self, text):
        """Types text literally (UTF-8; newlines are sent as C-j)."""
        if text:
            self._tmux("send-keys", "-t", self.pane, "-l", "--", text)

    def send_bytes(self, data):
        """Writes raw bytes to the program's terminal input."""
        if data:
            self._tmux("send-keys", "-t", self.pane, "-H",
                       *("%02x" % b for b in bytes(data)))

    # --- mouse -----------------------------------------------------------------

    def mouse_mode(self):
        """The pane's mouse reporting as tmux sees it: None when the
        program has not enabled it, else a dict of flags."""
        f = self.info("#{mouse_standard_flag} #{mouse_button_flag} "
                      "#{mouse_any_flag} #{mouse_sgr_flag} #{mouse_utf8_flag}").split()
        flags = dict(zip(("standard", "button", "any", "sgr", "utf8"),
                         (x == "1" for x in f)))
        if not (flags["standard"] or flags["button"] or flags["any"]):
            return None
        return flags

    def _mouse(self, button, col, row, release, timeout):
        """Sends one mouse event in the encoding the program asked for."""
        deadline = time.monotonic() + timeout
        while True:
            mode = self.mouse_mode()
            if mode:
                break
            if time.monotonic() >= deadline:
                self.text()
                self._fail("the program has not enabled mouse reporting "
                           "(no DECSET 1000/1002/1003)")
            time.sleep(POLL)
        if mode["sgr"]:
            seq = ("\x1b[<%d;%d;%d%s" % (button, col + 1, row + 1,
                                         "m" if release else "M")).encode()
        else:
            b = 3 if release else button
            vals = (32 + b, 33 + col, 33 + row)
            if mode["utf8"]:
                seq = b"\x1b[M" + "".join(map(chr, vals)).encode()
            elif max(vals) > 255:
                raise ValueError("cell (%d, %d) is beyond the X10 mouse "
                                 "encoding the program asked for" % (col, row))
            else:
                seq = b"\x1b[M" + bytes(vals)
        return seq

    def click(self, col, row, button=1, timeout=5):
        """Clicks (press and release) at the 0-based cell (col, row);
        button 1 left, 2 middle, 3 right.

        The program must have enabled mouse reporting (ncurses' mousemask
        does); this waits up to `timeout` for that.  The event is encoded
        as the program asked: SGR (ESC[<0;X;YM ... m) when it enabled mode
        1006, else the X10 form ESC[M (ncurses with TERM=tmux-256color
        uses X10)."""
        code = button - 1
        seq = self._mouse(code, col, row, False, timeout)
        seq += self._mouse(code, col, row, True, timeout)
        self.send_bytes(seq)

    def wheel(self, col, row, up=True, timeout=5):
        """Turns the mouse wheel once, up or down, over cell (col, row)."""
        self.send_bytes(self._mouse(64 if up else 65, col, row, False, timeout))

    # --- resizing ---------------------------------------------------------------

    def _wait_size(self, cols, rows, timeout=5):
        deadline = time.monotonic() + timeout
        while self.size() != (cols, rows):
            if time.monotonic() >= deadline:
                raise AssertionError("the pane is %dx%d, not %dx%d"
                                     % (self.size() + (cols, rows)))
            time.sleep(0.01)

    def resize(self, cols, rows):
        """Resizes the terminal; returns once the pane has the new size
        (the program gets SIGWINCH; wait for it to redraw)."""
        self._tmux("resize-window", "-t", self.pane, "-x", str(cols), "-y", str(rows))
        self._wait_size(cols, rows)
        self.cols, self.rows_count = cols, rows


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


@atexit.register
def _close_all():
    for s in list(_live):
        s.close()
