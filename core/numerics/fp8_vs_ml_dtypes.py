"""fp8.h's E4M3 and E5M2 against ml-dtypes (float8_e4m3fn, float8_e5m2), an independent implementation.

    python3 fp8_vs_ml_dtypes.py PATH/TO/fp8_codec_dump

Exhaustive where it can be: every code decoded and classified against ml-dtypes; encoded, against
ml-dtypes: every f16 and every bf16 value, every fp8 value, every tie between neighbouring fp8
values (and past the largest finite value) and 200,000 random float32 values over 2^-40 .. 2^24;
against exact rational rounding written here from the definition: the doubles either side of
every tie and 20,000 random doubles, because ml-dtypes 0.5.4 converts float64 to float8 through
float32 (two roundings; see check_encode). All with both signs. Both references use the
non-saturating rule (OFP8 section 5); the saturating results are checked through the rule itself:
what overflows (a finite value beyond the range, or an infinity) becomes the largest finite value
of its sign, everything else is the same code.
"""

import bisect
import subprocess
import sys
from fractions import Fraction

import ml_dtypes
import numpy as np

FORMATS = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
LARGEST_FINITE_CODE = {"e4m3": 0x7E, "e5m2": 0x7B}


def run(dump, mode, stdin=""):
    done = subprocess.run([dump, mode], input=stdin, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def ml_class(value, dtype):
    if np.isnan(value):
        return "nan"
    if np.isinf(value):
        return "infinite"
    if value == 0:
        return "zero"
    return "subnormal" if abs(value) < float(ml_dtypes.finfo(dtype).smallest_normal) else "normal"


def check_decode(dump):
    failures = []
    lines = run(dump, "decode")
    assert len(lines) == 256, f"decode printed {len(lines)} lines"
    for column, (fmt, dtype) in enumerate(FORMATS.items()):
        reference = np.arange(256, dtype=np.uint8).view(dtype).astype(np.float64)
        for code, line in enumerate(lines):
            fields = line.split()
            ours = np.array([int(fields[1 + 2 * column], 16)], dtype=np.uint64).view(np.float64)[0]
            theirs = reference[code]
            same = (np.isnan(ours) and np.isnan(theirs)) or (
                ours == theirs and np.signbit(ours) == np.signbit(theirs))
            if not same:
                failures.append(f"{fmt} decode 0x{code:02x}: ours {ours!r}, ml-dtypes {theirs!r}")
            if fields[2 + 2 * column] != ml_class(theirs, dtype):
                failures.append(f"{fmt} class of 0x{code:02x}: ours {fields[2 + 2 * column]}, "
                                f"ml-dtypes {ml_class(theirs, dtype)}")
        finfo = ml_dtypes.finfo(dtype)
        largest = reference[LARGEST_FINITE_CODE[fmt]]
        if largest != float(finfo.max):
            failures.append(f"{fmt}: largest finite code decodes to {largest}, ml-dtypes' max is {finfo.max}")
    return failures


def float32_inputs():
    """Exact float32 values: ml-dtypes converts float32 to float8 with one rounding."""
    parts = [
        np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32),
        (np.arange(65536, dtype=np.uint32) << 16).view(np.float32),  # bf16
        np.array([0.0, np.inf, np.nan, np.finfo(np.float32).max, np.finfo(np.float32).smallest_subnormal],
                 dtype=np.float32),
    ]
    for dtype in FORMATS.values():
        parts += [fp8_values(dtype), ties(dtype)]
    rng = np.random.default_rng(20261202)
    mantissas = rng.random(200_000) + 1.0
    parts.append(np.ldexp(mantissas, rng.integers(-40, 25, size=mantissas.size)).astype(np.float32))
    positive = np.concatenate(parts).astype(np.float32)
    return np.concatenate([positive, -positive])


def double_inputs():
    """Doubles that are not float32 values: the doubles either side of every tie, and random ones."""
    parts = [np.array([np.finfo(np.float64).max, np.finfo(np.float64).smallest_subnormal])]
    for dtype in FORMATS.values():
        t = ties(dtype).astype(np.float64)
        parts += [np.nextafter(t, np.inf), np.nextafter(t, -np.inf)]
    rng = np.random.default_rng(20261203)
    mantissas = rng.random(20_000) + 1.0
    parts.append(np.ldexp(mantissas, rng.integers(-20, 18, size=mantissas.size)))
    positive = np.concatenate(parts)
    return np.concatenate([positive, -positive])


def fp8_values(dtype):
    """The finite non-negative values of the format, ascending."""
    values = np.arange(256, dtype=np.uint8).view(dtype).astype(np.float64)
    return np.unique(np.abs(values[np.isfinite(values)])).astype(np.float32)


def ties(dtype):
    """The midpoints between neighbouring values, and past the largest by half its spacing."""
    values = fp8_values(dtype).astype(np.float64)
    step_at_max = values[-1] - values[-2]
    return np.concatenate([(values[:-1] + values[1:]) / 2, [values[-1] + step_at_max / 2]]).astype(np.float32)


def nearest_even_codes(xs, dtype):
    """Round to nearest, ties to the even code, non-saturating, by exact rational arithmetic:
    written from the definition, sharing nothing with fp8.cpp or ml-dtypes' conversion."""
    codes = np.arange(128, dtype=np.uint8)
    values = codes.view(dtype).astype(np.float64)
    finite = sorted((Fraction(float(v)), int(c)) for v, c in zip(values, codes) if np.isfinite(v))
    # Past the largest value the rounding sees one more value a spacing further (the format's
    # next binade, absent): what rounds to it overflows. Its code is the largest's plus one.
    spacing = finite[-1][0] - finite[-2][0]
    ladder = finite + [(finite[-1][0] + spacing, None)]
    keys = [v for v, _ in ladder]
    overflow_code = 0x7C if dtype == ml_dtypes.float8_e5m2 else 0x7F
    out = []
    for x in xs:
        sign = 0x80 if np.signbit(x) else 0  # x is finite (double_inputs)
        magnitude = Fraction(abs(float(x)))
        i = bisect.bisect_left(keys, magnitude)
        if i == len(ladder):
            out.append(sign | overflow_code)
            continue
        if keys[i] == magnitude or i == 0:
            chosen = i
        else:
            below, above = magnitude - keys[i - 1], keys[i] - magnitude
            code_below = ladder[i - 1][1]
            if below != above:
                chosen = i - 1 if below < above else i
            else:  # a tie: the even one (the absent value's code is the largest's plus one)
                chosen = i - 1 if code_below % 2 == 0 else i
        code = ladder[chosen][1]
        out.append(sign | (overflow_code if code is None else code))
    return np.array(out, dtype=np.uint8)


def compare(fmt, xs, our_codes, our_saturating, theirs_codes, what, failures):
    dtype = FORMATS[fmt]
    theirs_values = theirs_codes.view(dtype).astype(np.float64)
    our_values = our_codes.view(dtype).astype(np.float64)
    # NaN codes may differ in payload: a NaN of the input's sign is the same result.
    both_nan = np.isnan(our_values) & np.isnan(theirs_values)
    same = np.where(both_nan, np.signbit(our_values) == np.signbit(xs), our_codes == theirs_codes)
    for i in np.flatnonzero(~same)[:20]:
        failures.append(f"{fmt} encode {float(xs[i])!r} ({float(xs[i]).hex()}): ours 0x{our_codes[i]:02x}, "
                        f"{what} 0x{theirs_codes[i]:02x}")
    if (~same).sum() > 20:
        failures.append(f"{fmt} encode: {(~same).sum()} differences with {what} in all")
    # Saturating: overflow (a finite input whose non-saturating result is not finite, or an
    # infinite input) gives the largest finite value of the input's sign.
    overflowed = ~np.isnan(xs) & ~np.isfinite(theirs_values)
    sign = np.where(np.signbit(xs), 0x80, 0).astype(np.uint8)
    expected = np.where(overflowed, sign | LARGEST_FINITE_CODE[fmt], theirs_codes).astype(np.uint8)
    saturating_values = our_saturating.view(dtype).astype(np.float64)
    same = np.where(np.isnan(xs), np.isnan(saturating_values), our_saturating == expected)
    for i in np.flatnonzero(~same)[:20]:
        failures.append(f"{fmt} saturating encode {float(xs[i])!r}: ours 0x{our_saturating[i]:02x}, "
                        f"expected 0x{expected[i]:02x} (from {what})")
    print(f"{fmt}: {xs.size} values against {what}, {int(overflowed.sum())} overflowing, "
          f"{int(both_nan.sum())} NaN results")


def encode_with_dump(dump, xs):
    with np.errstate(invalid="ignore"):  # float32 signalling NaNs become quiet
        bits = xs.astype(np.float64).view(np.uint64)
    lines = run(dump, "encode", "".join(f"{b:016x}\n" for b in bits))
    assert len(lines) == xs.size, f"encode printed {len(lines)} lines for {xs.size} inputs"
    return np.array([[int(field, 16) for field in line.split()] for line in lines], dtype=np.uint8)


def check_encode(dump):
    failures = []
    singles, doubles = float32_inputs(), double_inputs()
    ours_singles, ours_doubles = encode_with_dump(dump, singles), encode_with_dump(dump, doubles)
    for column, (fmt, dtype) in enumerate(FORMATS.items()):
        with np.errstate(over="ignore", invalid="ignore"):
            theirs = singles.astype(dtype).view(np.uint8)
        compare(fmt, singles, ours_singles[:, 2 * column], ours_singles[:, 2 * column + 1], theirs,
                "ml-dtypes (from float32)", failures)
        compare(fmt, doubles, ours_doubles[:, 2 * column], ours_doubles[:, 2 * column + 1],
                nearest_even_codes(doubles, dtype), "exact rational rounding", failures)
    # Why doubles are not compared with ml-dtypes: it converts float64 through float32, a double
    # rounding (0x1.1000000000001p+0, just above the tie 1 + 1/16, becomes E4M3 1.0, not 1.125).
    # Kept as a check, so that a later ml-dtypes that fixes it is noticed here.
    x = np.array([float.fromhex("0x1.1000000000001p+0")])
    if x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)[0] != 0x38:
        print("note: ml-dtypes now rounds float64 to float8 once; compare the doubles with it too")
    return failures


def main():
    dump = sys.argv[1]
    failures = check_decode(dump) + check_encode(dump)
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        sys.exit(1)
    print(f"fp8 codec agrees with ml-dtypes {ml_dtypes.__version__} (256 codes decoded per format)")


if __name__ == "__main__":
    main()
