"""Statistics over runs (medians, min-max, added cost, CPU use) and the
cells they print as."""

DASH = "—"


class Stats:
    """Median, min and max of one quantity over the rounds."""

    def __init__(self, values):
        x = sorted(values)
        n = len(x)
        self.n = n
        self.min, self.max = x[0], x[-1]
        self.median = x[n // 2] if n % 2 else (x[n // 2 - 1] + x[n // 2]) / 2


def stats(values):
    values = list(values)
    return Stats(values) if values else None


def stat(res, table, variant, key):
    """A recorded field over the rounds (rounds without it left out)."""
    return stats(r.num(key) for r in res.of(table, variant) if r.fields.get(key, "") != "")


def derived(res, table, variant, expr):
    """expr(run) over the rounds that did not fail."""
    values = []
    for r in res.of(table, variant):
        if r.failed:
            continue
        try:
            values.append(expr(r))
        except ZeroDivisionError:
            continue
    return stats(values)


def padd(res, table, variant):
    """Added cost: each traced run minus the untraced run just before it."""
    return derived(res, table, variant, lambda r: r.num("ns_per_iter") - r.num("base"))


def med(s):
    return s.median if s else None


def errors_of(res, table, variant):
    """The first error of any round, or ""."""
    for r in res.of(table, variant):
        if "error" in r.fields:
            return r.fields["error"]
    return ""


def cpu_use(res, phase):
    """(other %, steal %) of the machine's CPU time while PHASE ran, as
    printed (one decimal), or None. Other = busy ticks not this script's
    own (its reaped children included); kernel threads working for our
    runs count as other, so a few % is normal."""
    for r in res.of("cpu", phase):
        cap = r.num("usecs") / 1e6 * r.num("hz") * r.num("ncpu")
        if cap <= 0:
            cap = 1
        other = max((r.num("busy_ticks") - r.num("own_ticks")) / cap * 100, 0)
        return "%.1f" % other, "%.1f" % (r.num("steal_ticks") / cap * 100)
    return None


# ---- numbers as text --------------------------------------------------------

def fmt(x, decimals=0):
    """With thousands separators: 1234567.8 -> 1,234,568."""
    return "{:,.{}f}".format(x or 0, decimals)


def cell(s, decimals=0, scale=1):
    """'median (min–max)', or — without data."""
    if not s:
        return DASH
    return "%s (%s–%s)" % (fmt(s.median / scale, decimals), fmt(s.min / scale, decimals),
                           fmt(s.max / scale, decimals))


def sgn(x):
    if x is None:
        return DASH
    return fmt(x) if x < 0 else "+" + fmt(x)


def intmed(s):
    return fmt(s.median) if s else "?"


def ratio(a, b):
    """a/b to 2 decimals, or —."""
    if a is None or b is None or b <= 0:
        return DASH
    return "%.2f" % (a / b)


def pct_over(a, b):
    """How many % a is above b."""
    return "%.0f" % ((a / b - 1) * 100)


def cut(text, width):
    return text[:width]
