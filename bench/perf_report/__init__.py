"""docs/PERFORMANCE.md from bench/run's raw results, one module per table
(bench/report.py is the command; bench/README.md says what each holds)."""

from .data import BenchData, Results, Run, parse_fields
from .report import Report, write_report

__all__ = ["BenchData", "Report", "Results", "Run", "parse_fields", "write_report"]
