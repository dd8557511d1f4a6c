"""Table 12: every system call (sys:*) attached and detached, against
bpftrace 0.27, measured by bench/syscalls.py, not by bench/run: the text is
bench/syscalls.md's, as it is."""

import os


class SyscallsTable:
    def syscalls_all(self):
        path = os.path.join(os.path.dirname(__file__), os.pardir, "syscalls.md")
        with open(path, encoding="utf-8") as f:
            self.w(f.read().rstrip("\n"))
        self.w()
