"""Table 11: user functions (u:BINARY:FUNC) against bpftrace 0.27, measured
by bench/ufunc.py, not by bench/run: the text is bench/ufunc.md's, as it is."""

import os


class UfuncTable:
    def ufunc(self):
        path = os.path.join(os.path.dirname(__file__), os.pardir, "ufunc.md")
        with open(path, encoding="utf-8") as f:
            self.w(f.read().rstrip("\n"))
        self.w()
