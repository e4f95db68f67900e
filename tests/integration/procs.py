"""The processes of this machine as /proc shows them, for the tests that
check what huddle leaves running."""

import os


def proc_stats():
    """(pid, fields) of each process in /proc, where fields are its stat
    line's after the command's name: state, parent, process group, …"""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        yield int(name), fields
