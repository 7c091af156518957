#!/usr/bin/env python3
"""Independent cross-check of `accucheck exact` with Python's fractions (stdlib only).

Usage: exact_vs_fractions.py PATH/TO/accucheck

Writes input files (ties, subnormals, overflow edges, cancellation to zero, -0 sums, mixed
magnitudes, specials, a 10^5-term file in f32 and 2*10^4-term files in the others) for f64, f32, f16, bf16
and the OCP fp8 formats e4m3 and e5m2 (OFP8 1.0: e4m3 has bias 7, no infinity, NaN only at S.1111.111,
largest 448, and overflows to NaN) into a temporary directory, runs `accucheck exact --format F FILE --json` on each, and checks sum_bits,
sum_hex, sum_decimal, exact, abs_sum_hex, exact_nearest_f64, kappa, count and special
against sums computed here exactly and rounded by this file's own round-to-nearest-even
(never through float(), which would round twice for the narrow formats). Also checks that a
token that is not a value of the format, or not a number, exits 2 naming the token and line.
"""
import functools
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from fractions import Fraction

# name: (precision p, emin, emax, storage bits)
FORMATS = {
    "f64": (53, -1022, 1023, 64),
    "f32": (24, -126, 127, 32),
    "f16": (11, -14, 15, 16),
    "bf16": (8, -126, 127, 16),
    "e4m3": (4, -6, 8, 8),
    "e5m2": (3, -14, 15, 8),
}
# The exponent bias where it is not emax, and the formats without infinity (OFP8 E4M3: the
# exponent field 1111 holds values, only S.1111.111 is NaN, so the largest value is one step
# below the IEEE pattern's, and what rounds beyond it is NaN).
BIAS = {"e4m3": 7}
NO_INFINITY = {"e4m3"}
SCALE = 1074  # every value of every format is an integer multiple of 2^-1074

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, file=sys.stderr)


@functools.lru_cache(maxsize=None)
def pow2(e):
    return Fraction(1 << e) if e >= 0 else Fraction(1, 1 << -e)


def largest(fmt):
    p, _, emax, _ = FORMATS[fmt]
    if fmt in NO_INFINITY:
        return (2 - pow2(2 - p)) * pow2(emax)
    return (2 - pow2(1 - p)) * pow2(emax)


def is_nan_pattern(bits, fmt):
    p, _, _, storage = FORMATS[fmt]
    if fmt in NO_INFINITY:
        return bits & ((1 << (storage - 1)) - 1) == (1 << (storage - 1)) - 1
    exponent_all_ones = ((1 << (storage - p)) - 1) << (p - 1)
    return bits & exponent_all_ones == exponent_all_ones and bits & ((1 << (p - 1)) - 1) != 0


def floor_log2(x):
    """floor(log2 x) for a Fraction x > 0, exactly."""
    n, d = x.numerator, x.denominator
    e = n.bit_length() - d.bit_length()
    if (e >= 0 and n < (d << e)) or (e < 0 and (n << -e) < d):
        e -= 1
    return e


def round_nearest_even(x, fmt):
    """RNE of the Fraction x into fmt: ('inf', negative), ('nan',) (overflow without infinity) or
    ('finite', negative, magnitude)."""
    p, emin, _, _ = FORMATS[fmt]
    negative = x < 0
    magnitude = -x if negative else x
    if magnitude == 0:
        return ("finite", negative, Fraction(0))
    q = max(floor_log2(magnitude), emin) - p + 1  # exponent of the last kept bit
    scaled = magnitude / pow2(q)
    units = scaled.numerator // scaled.denominator
    rest = scaled - units
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and units % 2 == 1):
        units += 1
    value = units * pow2(q)
    if value > largest(fmt):
        return ("nan",) if fmt in NO_INFINITY else ("inf", negative)
    return ("finite", negative, value)


def encode(rounded, fmt):
    """Bit pattern of a rounded value ('finite'/'inf'), from the format's definition."""
    p, emin, emax, bits = FORMATS[fmt]
    sign = (1 << (bits - 1)) if rounded[1] else 0
    exponent_bits = bits - p
    if rounded[0] == "inf":
        return sign | (((1 << exponent_bits) - 1) << (p - 1))
    value = rounded[2]
    if value == 0:
        return sign
    e = floor_log2(value)
    if e < emin:
        mantissa = value / pow2(emin - p + 1)
        assert mantissa.denominator == 1
        return sign | mantissa.numerator
    mantissa = value / pow2(e - p + 1)
    assert mantissa.denominator == 1 and (1 << (p - 1)) <= mantissa.numerator < (1 << p)
    biased = e + BIAS.get(fmt, emax)
    return sign | (biased << (p - 1)) | (mantissa.numerator - (1 << (p - 1)))


def decode(pattern, fmt):
    """A value of fmt from its bit pattern: ('finite', negative, magnitude), 'inf' or 'nan'."""
    p, emin, emax, bits = FORMATS[fmt]
    negative = bool(pattern >> (bits - 1))
    biased = (pattern >> (p - 1)) & ((1 << (bits - p)) - 1)
    mantissa = pattern & ((1 << (p - 1)) - 1)
    if is_nan_pattern(pattern, fmt):
        return ("nan",)
    if biased == (1 << (bits - p)) - 1 and fmt not in NO_INFINITY:
        return ("inf", negative)
    if biased == 0:
        return ("finite", negative, mantissa * pow2(emin - p + 1))
    return ("finite", negative, (mantissa + (1 << (p - 1))) * pow2(biased - BIAS.get(fmt, emax) - p + 1))


# ---------------------------------------------------------------------------------------
# Addends: (token text, kind, negative, scaled integer N with value N * 2^-1074)

def scaled_of(value):
    s = value * pow2(SCALE)
    assert s.denominator == 1, value
    return s.numerator


def token_for(negative, magnitude, rng):
    """An exact textual form of +-magnitude (a dyadic rational), in one of several styles."""
    sign = "-" if negative else ""
    if magnitude == 0:
        return rng.choice([sign + "0", sign + "0.0", sign + "0x0p+0", sign + "0e5"])
    style = rng.randrange(4)
    e = floor_log2(magnitude)
    if style == 0:  # hex, integer significand
        m, k = magnitude.numerator, 0
        d = magnitude.denominator  # a power of two
        k = -(d.bit_length() - 1)
        return "%s0x%xp%d" % (sign, m, k)
    if style == 1:  # hex with a fraction point, 1.xxx
        frac = magnitude / pow2(e) - 1  # in [0, 1)
        digits = ""
        while frac != 0:
            frac *= 16
            digit = frac.numerator // frac.denominator
            digits += "0123456789abcdef"[digit]
            frac -= digit
        return "%s0x1%sp%+d" % (sign, ("." + digits) if digits else "", e)
    # exact decimal: m * 2^k = m * 5^-k / 10^-k for k < 0
    m = magnitude.numerator
    k = -(magnitude.denominator.bit_length() - 1)
    if k >= 0:
        return sign + str(m << k)
    digits = str(m * 5 ** (-k))
    if style == 2:
        return "%s%se-%d" % (sign, digits, -k)
    # as 0.000ddd or ddd.ddd
    if len(digits) <= -k:
        return sign + "0." + "0" * (-k - len(digits)) + digits
    return sign + digits[: len(digits) + k] + "." + digits[len(digits) + k:]


def finite_addend(negative, magnitude, rng):
    return (token_for(negative, magnitude, rng), "finite", negative, -scaled_of(magnitude) if negative else scaled_of(magnitude))


def special_addend(kind, negative=False):
    if kind == "nan":
        return ("nan", "nan", False, 0)
    return ("-inf" if negative else "inf", "inf", negative, 0)


def random_value(fmt, rng, band=None):
    """A random finite value of fmt: any bit pattern, or one in an exponent band."""
    p, emin, emax, bits = FORMATS[fmt]
    if band is None:
        while True:
            d = decode(rng.getrandbits(bits), fmt)
            if d[0] == "finite":
                return d[1], d[2]
    lo, hi = band
    e = rng.randint(lo, hi)
    m = rng.getrandbits(p - 1) | (1 << (p - 1))
    if emin <= e <= emax and m * pow2(e - p + 1) <= largest(fmt):  # a normal value already
        return rng.random() < 0.5, m * pow2(e - p + 1)
    r = round_nearest_even(m * pow2(e - p + 1), fmt)
    if r[0] != "finite":
        return rng.random() < 0.5, largest(fmt)
    return rng.random() < 0.5, r[2]


# ---------------------------------------------------------------------------------------
# The expected summary of a file, computed here.

def expected_summary(addends, fmt):
    nan = any(a[1] == "nan" for a in addends)
    pos_inf = any(a[1] == "inf" and not a[2] for a in addends)
    neg_inf = any(a[1] == "inf" and a[2] for a in addends)
    total = sum(a[3] for a in addends if a[1] == "finite")
    total_abs = sum(abs(a[3]) for a in addends if a[1] == "finite")
    all_negative_zero = len(addends) > 0 and all(a[1] == "finite" and a[2] and a[3] == 0 for a in addends)
    if nan or (pos_inf and neg_inf):
        special, rounded = "nan", ("nan",)
    elif pos_inf:
        special, rounded = "+inf", ("inf", False)
    elif neg_inf:
        special, rounded = "-inf", ("inf", True)
    else:
        special = "finite"
        if total == 0:
            rounded = ("finite", all_negative_zero, Fraction(0))
        else:
            rounded = round_nearest_even(Fraction(total, 1 << SCALE), fmt)
    return {
        "special": special,
        "rounded": rounded,
        "sum": Fraction(total, 1 << SCALE),
        "abs_sum": Fraction(total_abs, 1 << SCALE),
        "count": len(addends),
    }


def parse_fixed_hex(text):
    """accucheck's fixed_hex: [-]0x<hex>p<exp> with an odd significand (or 0x0p+0)."""
    match = re.fullmatch(r"(-?)0x([0-9a-f]+)p([+-]\d+)", text)
    if not match:
        return None, False
    significand = int(match.group(2), 16)
    value = significand * pow2(int(match.group(3)))
    normalized = significand % 2 == 1 or (significand == 0 and text == "0x0p+0")
    return (-value if match.group(1) else value), normalized


def rounded_as_float(rounded):
    if rounded[0] == "nan":
        return float("nan")
    if rounded[0] == "inf":
        return float("-inf") if rounded[1] else float("inf")
    value = float(rounded[2])  # exact: every value of these formats is a double
    return -value if rounded[1] else value


def json_number(value):
    if isinstance(value, str):
        return float(value)  # "inf", "-inf", "nan"
    return float(value)


def same_float(a, b):
    if a != a or b != b:
        return a != a and b != b
    return a == b and str(a)[0] == str(b)[0] if a == 0 else a == b


def check_output(label, fmt, addends, out):
    want = expected_summary(addends, fmt)
    where = "%s [%s]" % (label, fmt)
    if out.get("format") != fmt:
        fail("%s: format %r" % (where, out.get("format")))
    if out.get("count") != want["count"]:
        fail("%s: count %r, expected %d" % (where, out.get("count"), want["count"]))
    if out.get("special") != want["special"]:
        fail("%s: special %r, expected %s" % (where, out.get("special"), want["special"]))
    # sum_bits
    bits = int(out["sum_bits"], 16)
    p, _, _, storage = FORMATS[fmt]
    if want["rounded"][0] == "nan":
        if not is_nan_pattern(bits, fmt):
            fail("%s: sum_bits %s is not a NaN" % (where, out["sum_bits"]))
    else:
        expected_bits = encode(want["rounded"], fmt)
        if bits != expected_bits:
            fail("%s: sum_bits %s, expected 0x%0*x (exact %s)" % (where, out["sum_bits"], storage // 4, expected_bits,
                                                                   want["sum"]))
    if len(out["sum_bits"]) != 2 + storage // 4:
        fail("%s: sum_bits %r has the wrong width" % (where, out["sum_bits"]))
    # sum_hex
    expected_float = rounded_as_float(want["rounded"])
    hex_text = out["sum_hex"]
    got_float = float(hex_text) if hex_text in ("inf", "-inf", "nan") else float.fromhex(hex_text)
    if not same_float(got_float, expected_float):
        fail("%s: sum_hex %s, expected %s" % (where, hex_text, expected_float.hex()))
    # sum_decimal round-trips into the format
    decimal_text = out["sum_decimal"]
    if decimal_text in ("inf", "-inf", "nan"):
        if not same_float(float(decimal_text), expected_float):
            fail("%s: sum_decimal %s" % (where, decimal_text))
    else:
        back = round_nearest_even(Fraction(decimal_text), fmt)
        back = (back[0], decimal_text.startswith("-")) + back[2:]
        if not same_float(rounded_as_float(back), expected_float):
            fail("%s: sum_decimal %s does not round back to %s" % (where, decimal_text, expected_float.hex()))
    # exact and abs_sum_hex
    if want["special"] == "finite":
        value, normalized = parse_fixed_hex(out["exact"])
        if value != want["sum"] or not normalized:
            fail("%s: exact %s, expected %s" % (where, out["exact"], want["sum"]))
        value, normalized = parse_fixed_hex(out["abs_sum_hex"])
        if value != want["abs_sum"] or not normalized:
            fail("%s: abs_sum_hex %s, expected %s" % (where, out["abs_sum_hex"], want["abs_sum"]))
        try:
            nearest = float(want["sum"])  # int/int true division: correctly rounded in Python
        except OverflowError:
            nearest = float("inf") if want["sum"] > 0 else float("-inf")
        if json_number(out["exact_nearest_f64"]) != nearest:
            fail("%s: exact_nearest_f64 %r, expected %r" % (where, out["exact_nearest_f64"], nearest))
        if want["abs_sum"] == 0:
            kappa = 1.0
        elif want["sum"] == 0:
            kappa = float("inf")
        else:
            try:
                kappa = float(want["abs_sum"] / abs(want["sum"]))
            except OverflowError:
                kappa = float("inf")
        if json_number(out["kappa"]) != kappa:
            fail("%s: kappa %r, expected %r" % (where, out["kappa"], kappa))
    else:
        if out["exact"] != want["special"]:
            fail("%s: exact %r, expected %r" % (where, out["exact"], want["special"]))


def run_file(binary, directory, label, fmt, addends, rng, per_line=None):
    path = os.path.join(directory, "%s_%s.txt" % (re.sub(r"\W+", "_", label), fmt))
    with open(path, "w") as handle:
        handle.write("# %s in %s\n" % (label, fmt))
        line = []
        for a in addends:
            line.append(a[0])
            if len(line) >= (per_line or rng.randint(1, 4)):
                handle.write(" ".join(line) + ("  # comment\n" if rng.random() < 0.1 else "\n"))
                line = []
        if line:
            handle.write("\t".join(line) + "\n")
    result = subprocess.run([binary, "exact", "--format", fmt, path, "--json"], capture_output=True, text=True)
    if result.returncode != 0:
        fail("%s [%s]: exit %d: %s" % (label, fmt, result.returncode, result.stderr.strip()))
        return
    try:
        out = json.loads(result.stdout)
    except ValueError as error:
        fail("%s [%s]: bad JSON %r: %s" % (label, fmt, result.stdout[:200], error))
        return
    check_output(label, fmt, addends, out)


def cases_for(fmt, rng):
    p, emin, emax, _ = FORMATS[fmt]
    ss = pow2(emin - p + 1)
    sn = pow2(emin)
    big = largest(fmt)
    half_ulp_big = pow2(emax - p)
    two_p = pow2(p)

    def f(*values):
        return [finite_addend(v < 0, abs(v), rng) for v in values]

    cases = [
        ("tie down", f(two_p, 1)),
        ("tie up", f(two_p, 3)),
        ("tie broken by sticky", f(two_p, 1, ss)),
        ("tie broken downward", f(two_p, 1, -ss)),
        ("negative ties", f(-two_p, -1, -two_p - 2, -1)),
        ("subnormal sums", f(ss, ss, ss, -ss, 5 * ss)),
        ("subnormals", f(*([ss] * 7))),
        ("subnormal into normal", f(sn - ss, ss)),
        ("subnormal cancellation", f(sn, -ss, -ss, ss)),
        ("overflow tie", f(big, half_ulp_big)),
        ("just below overflow", f(big, half_ulp_big, -ss)),
        ("negative overflow", f(-big, -half_ulp_big)),
        ("negative just below", f(-big, -half_ulp_big, ss)),
        ("far beyond range then back", f(big, big, big, -big, -big)),
        ("beyond range", f(big, big)),
        ("cancellation to zero", f(Fraction(3, 2), Fraction(-3, 2), big, -big)),
        ("negative zeros", [finite_addend(True, Fraction(0), rng) for _ in range(5)]),
        ("mixed zeros", [finite_addend(True, Fraction(0), rng), finite_addend(False, Fraction(0), rng)]),
        ("one negative zero", [finite_addend(True, Fraction(0), rng)]),
        ("tiny negative", f(-ss)),
        ("nan", f(1) + [special_addend("nan")] + f(2)),
        ("plus infinity", [special_addend("inf")] + f(-big)),
        ("minus infinity", [special_addend("inf", True)] + f(big, 1) + [special_addend("inf", True)]),
        ("both infinities", [special_addend("inf"), special_addend("inf", True)]),
        ("empty", []),
    ]
    if fmt in NO_INFINITY:  # an infinity is no value of it (check_errors: refused)
        cases = [case for case in cases if not any(a[1] == "inf" for a in case[1])]
    # Mixed magnitudes and random bit patterns.
    for trial in range(12):
        n = rng.randint(1, 60)
        band = None if trial % 3 == 0 else (lambda lo: (lo, min(lo + rng.choice([3, 30, 300]), emax)))(
            rng.randint(emin - p, emax))
        values = [random_value(fmt, rng, band) for _ in range(n)]
        cases.append(("random %d" % trial, [finite_addend(neg, mag, rng) for neg, mag in values]))
    # Cancelling pairs with a small residual.
    values = [random_value(fmt, rng, (emin, emax - 4)) for _ in range(40)]
    addends = []
    for neg, mag in values:
        addends += [finite_addend(neg, mag, rng), finite_addend(not neg, mag, rng)]
    addends.append(finite_addend(False, ss * 3, rng))
    rng.shuffle(addends)
    cases.append(("cancelling pairs", addends))
    return cases


def check_errors(binary, directory):
    """Bad tokens: exit 2, the message names the token and its line."""
    bad = [
        ("f32", "1\n0.5\n0.1\n", "0.1", ":3:"),
        ("f16", "1\n65505\n", "65505", ":2:"),
        ("bf16", "0.5 1\n257\n", "257", ":2:"),
        ("f64", "# comment\n1e-400\n", "1e-400", ":2:"),
        ("f32", "1 2\n3 1.2.3\n", "1.2.3", ":2:"),
        ("f16", "0x1p-25\n", "0x1p-25", ":1:"),
        ("e4m3", "448\n480\n", "480", ":2:"),  # S.1111.111 would be 480: NaN in E4M3
        ("e4m3", "1 inf\n", "inf", ":1:"),      # no infinity in E4M3
        ("e4m3", "0x1p-10\n", "0x1p-10", ":1:"),
        ("e5m2", "1.125\n", "1.125", ":1:"),
    ]
    for fmt, text, token, line in bad:
        path = os.path.join(directory, "bad.txt")
        with open(path, "w") as handle:
            handle.write(text)
        result = subprocess.run([binary, "exact", "--format", fmt, path, "--json"], capture_output=True, text=True)
        if result.returncode != 2:
            fail("bad token %r [%s]: exit %d, expected 2" % (token, fmt, result.returncode))
        if token not in result.stderr or line not in result.stderr:
            fail("bad token %r [%s]: message %r does not name the token and line %s" % (token, fmt, result.stderr, line))
        if result.stdout.strip():
            fail("bad token %r [%s]: printed %r" % (token, fmt, result.stdout))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = sys.argv[1]
    rng = random.Random(20240601)
    with tempfile.TemporaryDirectory(prefix="accucheck_fractions_") as directory:
        files = 0
        for fmt in FORMATS:
            for label, addends in cases_for(fmt, rng):
                run_file(binary, directory, label, fmt, addends, rng)
                files += 1
        # Long files: tenths and random values of the format; 10^5 terms in f32, 2*10^4 in the others.
        for fmt in FORMATS:
            p, emin, emax, _ = FORMATS[fmt]
            tenth = round_nearest_even(Fraction(1, 10), fmt)[2]
            tenths = [finite_addend(False, tenth, rng) for _ in range(8)]  # in several spellings
            addends = []
            for i in range(100000 if fmt == "f32" else 20000):
                if i % 2:
                    addends.append(tenths[i % 8])
                else:
                    neg, mag = random_value(fmt, rng, (-8, min(8, emax)))
                    addends.append(finite_addend(neg, mag, rng))
            run_file(binary, directory, "long file", fmt, addends, rng, per_line=8)
            files += 1
        check_errors(binary, directory)
    if failures:
        print("%d failures" % len(failures), file=sys.stderr)
        return 1
    print("exact_vs_fractions: %d files checked against fractions.Fraction, all agree" % files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
