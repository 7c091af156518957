// The fast exact accumulator (see fast_exact.h for the design and its invariants).
#include "numerics/fast_exact.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace accucheck {
namespace {

using u128 = unsigned __int128;
constexpr std::uint64_t kMantissaMask = (std::uint64_t{1} << 52) - 1;
constexpr std::uint64_t kZeroKey = std::uint64_t{1} << 53;  // max_key_ of +-0

// The FixedInt limbs are written directly; these are the assumptions that makes valid.
using FixedBackend = FixedInt::backend_type;
static_assert(sizeof(mp::limb_type) == 8, "64-bit limbs expected");
static_assert(FixedBackend::internal_limb_count == FastExactAccumulator::kLimbs,
              "FixedInt and the accumulator must have the same width");

}  // namespace

void set_fixed(FixedInt& target, const std::uint64_t* limbs, int size, bool negative) {
  while (size > 1 && limbs[size - 1] == 0) --size;
  FixedBackend& b = target.backend();
  b.resize(static_cast<unsigned>(size), static_cast<unsigned>(size));
  std::memcpy(b.limbs(), limbs, static_cast<std::size_t>(size) * sizeof(std::uint64_t));
  b.normalize();
  b.sign(negative);
}

void set_fixed_shifted(FixedInt& target, const std::uint64_t* words, int count, int bit_offset, bool negative) {
  constexpr int kLimbs = FastExactAccumulator::kLimbs;
  const int whole = bit_offset / 64, bits = bit_offset % 64;
  const int size = std::min(kLimbs, whole + count + 1);
  FixedBackend& b = target.backend();
  b.resize(static_cast<unsigned>(size), static_cast<unsigned>(size));
  mp::limb_type* limbs = b.limbs();
  std::memset(limbs, 0, static_cast<std::size_t>(size) * sizeof(mp::limb_type));
  for (int i = 0; i < count && whole + i < size; ++i) {
    limbs[whole + i] |= words[i] << bits;
    if (bits != 0 && whole + i + 1 < size) limbs[whole + i + 1] |= words[i] >> (64 - bits);
  }
  b.normalize();
  b.sign(negative);
}

namespace {

// -1, 0, 1 as a <, ==, > b (unsigned, `size` limbs).
int compare_limbs(const std::uint64_t* a, const std::uint64_t* b, int size) {
  for (int i = size - 1; i >= 0; --i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

// out = a - b over `size` limbs, requires a >= b.
void subtract_limbs(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out, int size) {
  std::uint64_t borrow = 0;
  for (int i = 0; i < size; ++i) {
    const u128 d = static_cast<u128>(a[i]) - b[i] - borrow;
    out[i] = static_cast<std::uint64_t>(d);
    borrow = static_cast<std::uint64_t>(d >> 64) & 1;
  }
}

// out = a + b over `size` limbs (the carry out of the top limb is dropped: the caller's bound
// says there is none).
void add_limbs(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out, int size) {
  std::uint64_t carry = 0;
  for (int i = 0; i < size; ++i) {
    const u128 s = static_cast<u128>(a[i]) + b[i] + carry;
    out[i] = static_cast<std::uint64_t>(s);
    carry = static_cast<std::uint64_t>(s >> 64);
  }
}

// Adds value << position (value < 2^65, position < 2046) into the limbs, rippling the carry.
inline void add_at(std::uint64_t* limbs, u128 value, int position) {
  const int k = position >> 6;
  const u128 shifted = value << (position & 63);  // < 2^128 since value < 2^65
  const u128 current = (static_cast<u128>(limbs[k + 1]) << 64) | limbs[k];
  const u128 sum = current + shifted;
  limbs[k] = static_cast<std::uint64_t>(sum);
  limbs[k + 1] = static_cast<std::uint64_t>(sum >> 64);
  if (sum < shifted) [[unlikely]] {
    // The sums stay far below 2^2240 (fast_exact.h), so the ripple ends inside the array.
    int i = k + 2;
    while (++limbs[i] == 0) ++i;
  }
}

bool bit_at(const std::uint64_t* limbs, int i) { return (limbs[i >> 6] >> (i & 63)) & 1; }

// The 64 bits of the magnitude starting at bit `from` (bits past the top limb read as 0).
std::uint64_t window(const std::uint64_t* limbs, int count, int from) {
  const int k = from >> 6, r = from & 63;
  std::uint64_t w = k < count ? limbs[k] >> r : 0;
  if (r != 0 && k + 1 < count) w |= limbs[k + 1] << (64 - r);
  return w;
}

// Any bit set strictly below bit `below`?
bool any_below(const std::uint64_t* limbs, int below) {
  const int k = below >> 6, r = below & 63;
  if (r != 0 && (limbs[k] & ((std::uint64_t{1} << r) - 1)) != 0) return true;
  for (int i = k - 1; i >= 0; --i)  // downward: the bits of short sums sit just below the top
    if (limbs[i] != 0) return true;
  return false;
}

}  // namespace

double round_limbs(const std::uint64_t* limbs, int count, Format f, bool* inexact) {
  if (inexact) *inexact = true;
  int top = count - 1;
  while (top >= 0 && limbs[top] == 0) --top;
  if (top < 0) {
    if (inexact) *inexact = false;
    return 0.0;
  }
  const auto& t = traits(f);
  const int top_bit = top * 64 + 63 - std::countl_zero(limbs[top]);
  const int exponent = top_bit - fixed_scale;  // floor(log2 |value|)
  if (exponent > t.emax + 1) return overflow_value(f, false);
  const int quantum_exponent = std::max(exponent, t.emin) - t.precision + 1;
  const int quantum_bit = quantum_exponent + fixed_scale;  // >= 0 for every format
  // Bits above top_bit are zero, so the window from quantum_bit holds exactly the <= p kept bits.
  std::uint64_t units = window(limbs, count, quantum_bit);
  // The round bit lies above top_bit (and maybe above the `count` limbs, which must not be
  // read) when the value is below half the quantum: then it is 0.
  if (quantum_bit > 0 && quantum_bit - 1 <= top_bit && bit_at(limbs, quantum_bit - 1) &&
      ((units & 1) || any_below(limbs, quantum_bit - 1)))
    ++units;  // nearest, ties to even
  // units * 2^quantum_exponent, exact (it is a value of f, or beyond its range only when it
  // overflows); the power of two built from its bits (quantum_exponent >= -1074).
  const double scale = quantum_exponent >= -1022
                           ? std::bit_cast<double>(static_cast<std::uint64_t>(quantum_exponent + 1023) << 52)
                           : std::bit_cast<double>(std::uint64_t{1} << (quantum_exponent + 1074));
  const double result = static_cast<double>(units) * scale;
  if (result > largest_finite(f)) return overflow_value(f, false);
  if (inexact) *inexact = quantum_bit > top_bit || (quantum_bit > 0 && any_below(limbs, quantum_bit));
  return result;
}

double round_fixed_fast(const FixedInt& value, Format f, bool* inexact) {
  const FixedBackend& b = value.backend();
  // limb_type is unsigned long long, a type distinct from std::uint64_t: copy, do not alias.
  std::uint64_t limbs[FastExactAccumulator::kLimbs];
  const int size = static_cast<int>(b.size());
  std::memcpy(limbs, b.limbs(), sizeof(std::uint64_t) * static_cast<std::size_t>(size));
  const double magnitude = round_limbs(limbs, size, f, inexact);
  return b.sign() ? -magnitude : magnitude;
}

double nearest_abs_difference(double x, const FixedInt& s, bool* inexact) {
  constexpr int kLimbs = FastExactAccumulator::kLimbs;
  const FixedBackend& b = s.backend();
  const int size = static_cast<int>(b.size());
  // |x| in units of 2^-1074: its significand shifted to the exponent's place (limbs k, k+1).
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t significand = (bits & ((std::uint64_t{1} << 52) - 1)) | (biased ? std::uint64_t{1} << 52 : 0);
  const int shift = biased ? biased - 1 : 0;
  const int k = shift >> 6;
  // Only the limbs either value reaches, and one for a carry.
  const int count = std::min(kLimbs, std::max(size, k + 2) + 1);
  std::uint64_t a[kLimbs], d[kLimbs];
  std::memset(a, 0, sizeof(std::uint64_t) * static_cast<std::size_t>(count));
  std::memset(d, 0, sizeof(std::uint64_t) * static_cast<std::size_t>(count));
  std::memcpy(a, b.limbs(), sizeof(std::uint64_t) * static_cast<std::size_t>(size));
  d[k] = significand << (shift & 63);
  if ((shift & 63) > 11) d[k + 1] = significand >> (64 - (shift & 63));
  if (static_cast<bool>(bits >> 63) != b.sign()) {
    // Opposite signs: |x - S| = |x| + |S| (a zero S or x takes either branch correctly).
    u128 carry = 0;
    for (int i = 0; i < count; ++i) {
      carry += static_cast<u128>(a[i]) + d[i];
      d[i] = static_cast<std::uint64_t>(carry);
      carry >>= 64;
    }
    return round_limbs(d, count, Format::f64, inexact);
  }
  // Same signs: | |x| - |S| |, the larger minus the smaller.
  int top = count - 1;
  while (top > 0 && a[top] == d[top]) --top;
  std::uint64_t* big = a[top] > d[top] ? a : d;
  const std::uint64_t* small = big == a ? d : a;
  std::uint64_t borrow = 0;
  for (int i = 0; i <= top; ++i) {
    const u128 difference = static_cast<u128>(big[i]) - small[i] - borrow;
    big[i] = static_cast<std::uint64_t>(difference);
    borrow = static_cast<std::uint64_t>(difference >> 64) & 1;
  }
  for (int i = top + 1; i < count; ++i) big[i] = 0;  // equal limbs above top cancel
  return round_limbs(big, count, Format::f64, inexact);
}

struct FastExactAccumulator::Large {
  // Sum of the raw bit patterns of the addends in each chunk (mod 2^64).
  std::uint64_t chunk[kChunks];
  // Addends the chunk can still take before a flush; -1 marks a chunk not in use (and the
  // NaN/infinity chunks, which never hold anything).
  std::int16_t count[kChunks];
  std::uint16_t touched[kChunks];  // chunks in use, in order of first use
  int touched_count = 0;

  Large() { std::fill(std::begin(count), std::end(count), std::int16_t{-1}); }
};

FastExactAccumulator::FastExactAccumulator(std::uint64_t direct_limit) : direct_limit_(direct_limit) {
  std::memset(pos_, 0, sizeof pos_);
  std::memset(neg_, 0, sizeof neg_);
  std::memset(cells_, 0, sizeof cells_);
}

// One spare set of chunk tables per thread, so that a long sum does not allocate and clear
// 40 KiB each time. nullptr once the thread's spare has been destroyed (an accumulator that
// outlives it, e.g. a static one, then frees its tables itself).
std::unique_ptr<FastExactAccumulator::Large>* FastExactAccumulator::spare_large() {
  struct Holder {
    std::unique_ptr<Large> tables;
    bool* gone;
    ~Holder() { *gone = true; }
  };
  thread_local bool gone = false;  // trivially destructible: readable to the end of the thread
  if (gone) return nullptr;
  thread_local Holder holder{nullptr, &gone};
  return &holder.tables;
}

FastExactAccumulator::~FastExactAccumulator() {
  if (!large_) return;
  // Hand clean tables (every count back to "unused") to the next accumulator of this thread.
  for (int i = 0; i < large_->touched_count; ++i) large_->count[large_->touched[i]] = -1;
  large_->touched_count = 0;
  auto* spare = spare_large();
  if (spare && !*spare) *spare = std::move(large_);
}

FastExactAccumulator::FastExactAccumulator(FastExactAccumulator&& other) noexcept
    : FastExactAccumulator(other.direct_limit_) {
  *this = std::move(other);
}

FastExactAccumulator& FastExactAccumulator::operator=(FastExactAccumulator&& other) noexcept {
  if (this == &other) return *this;
  std::memcpy(pos_, other.pos_, sizeof pos_);
  std::memcpy(neg_, other.neg_, sizeof neg_);
  std::memcpy(cells_, other.cells_, sizeof cells_);
  cells_pending_ = other.cells_pending_;
  count_ = other.count_;
  max_key_ = other.max_key_;
  sign_and_ = other.sign_and_;
  nan_ = other.nan_;
  pos_inf_ = other.pos_inf_;
  neg_inf_ = other.neg_inf_;
  large_ = std::move(other.large_);
  large_active_ = other.large_active_;
  direct_limit_ = other.direct_limit_;
  other.large_active_ = false;
  other.reset();  // the moved-from accumulator is empty and usable
  return *this;
}

void FastExactAccumulator::reset() {
  std::memset(pos_, 0, sizeof pos_);
  std::memset(neg_, 0, sizeof neg_);
  std::memset(cells_, 0, sizeof cells_);
  cells_pending_ = 0;
  count_ = 0;
  max_key_ = 0;
  sign_and_ = ~std::uint64_t{0};
  nan_ = pos_inf_ = neg_inf_ = false;
  if (large_) {
    for (int i = 0; i < large_->touched_count; ++i) large_->count[large_->touched[i]] = -1;
    large_->touched_count = 0;
  }
  large_active_ = false;
}

void FastExactAccumulator::add(std::span<const double> xs) {
  if (xs.empty()) return;
  if (!large_active_) {
    if (count_ + xs.size() <= direct_limit_ && count_ + xs.size() >= count_) {
      add_direct(xs.data(), xs.size());
      return;
    }
    enter_large();
  }
  add_large(xs.data(), xs.size());
}

void FastExactAccumulator::add_special(std::uint64_t bits) {
  if ((bits & kMantissaMask) != 0)
    nan_ = true;
  else if (bits >> 63)
    neg_inf_ = true;
  else
    pos_inf_ = true;
}

void FastExactAccumulator::add_direct(const double* x, std::size_t n) {
  count_ += n;
  std::uint64_t mk = max_key_, sa = sign_and_;
  while (n > 0) {
    // At most kCellCapacity addends between folds: each adds below 2^53 to a cell.
    const std::size_t take = std::min<std::size_t>(n, kCellCapacity - cells_pending_);
    for (std::size_t i = 0; i < take; ++i) {
      const std::uint64_t u = std::bit_cast<std::uint64_t>(x[i]);
      const std::uint64_t key = (u << 1) + kZeroKey;
      mk = key > mk ? key : mk;
      sa &= u;
      const unsigned biased = static_cast<unsigned>(u >> 52) & 0x7ff;
      if (biased == 0x7ff) [[unlikely]] {
        add_special(u);
        continue;
      }
      // x = (implicit * 2^52 + m) * 2^position in units of 2^-1074, position = max(biased - 1, 0).
      const unsigned implicit = (biased + 0x7ff) >> 11;  // biased != 0
      const std::uint64_t mantissa = (u & kMantissaMask) | (std::uint64_t{implicit} << 52);
      const unsigned position = biased - implicit;
      const unsigned r = position & 31;
      std::uint64_t* cell = cells_[u >> 63] + (position >> 5);
      std::uint64_t* next = cell + 1;
      // Hides that the cells are adjacent: fused into one 16-byte load and store (as g++
      // vectorizes it), the access overlaps the previous addend's and stalls store forwarding.
      asm("" : "+r"(next));
      cell[0] += static_cast<std::uint32_t>(mantissa << r);  // the low 32 bits of mantissa << r
      *next += mantissa >> (32 - r);                         // the rest (< 2^53)
    }
    x += take;
    n -= take;
    cells_pending_ += static_cast<std::uint32_t>(take);
    max_key_ = mk;  // fold_cells() reads it
    if (cells_pending_ == kCellCapacity) fold_cells();
  }
  sign_and_ = sa;
}

// Adds the cells to P and N and clears them. Cell i weighs 2^(32 i) and holds less than 2^63:
// limb j receives cell 2j whole, the low half of cell 2j+1 (shifted up by 32) and the high
// half of cell 2j-1, three 64-bit terms added with one carry chain.
void FastExactAccumulator::fold_cells() {
  if (cells_pending_ == 0) return;
  // Only the cells that can be non-zero: every addend is below 2^(biased + 52) units, where
  // biased is the exponent field of max |x|, and at most 2047 of them are in the cells.
  const unsigned top_biased = max_key_ >= kZeroKey ? static_cast<unsigned>((max_key_ - kZeroKey) >> 53) : 0;
  const int used = std::min<int>(kCells / 2, static_cast<int>((top_biased + 52 + 11) >> 6) + 1);
  for (int s = 0; s < 2; ++s) {
    std::uint64_t* cell = cells_[s];
    std::uint64_t* target = s == 0 ? pos_ : neg_;
    std::uint64_t carry = 0;
    std::uint64_t below = 0;  // high half of cell 2j-1
    for (int j = 0; j < used; ++j) {
      const std::uint64_t even = cell[2 * j], odd = cell[2 * j + 1];
      cell[2 * j] = cell[2 * j + 1] = 0;  // (a memset here costs more than the loop, for short sums)
      const u128 sum = static_cast<u128>(target[j]) + even + ((odd << 32) | below) + carry;
      target[j] = static_cast<std::uint64_t>(sum);
      carry = static_cast<std::uint64_t>(sum >> 64);
      below = odd >> 32;
    }
    // What is left ripples upward; P and N stay far below 2^2240 (fast_exact.h).
    u128 rest = static_cast<u128>(below) + carry;
    for (int j = used; rest != 0; ++j) {
      const u128 sum = static_cast<u128>(target[j]) + rest;
      target[j] = static_cast<std::uint64_t>(sum);
      rest = sum >> 64;
    }
  }
  cells_pending_ = 0;
}

void FastExactAccumulator::enter_large() {
  if (!large_) {
    auto* spare = spare_large();
    large_ = spare && *spare ? std::move(*spare) : std::make_unique<Large>();
  }
  large_active_ = true;
}

void FastExactAccumulator::add_large(const double* x, std::size_t n) {
  Large& large = *large_;
  std::uint64_t mk = max_key_;
  auto step = [&](std::uint64_t u) {
    const unsigned index = static_cast<unsigned>(u >> 52);
    const int remaining = large.count[index] - 1;
    if (remaining < 0) [[unlikely]] {
      slow_chunk(index, u);
    } else {
      large.count[index] = static_cast<std::int16_t>(remaining);
      large.chunk[index] += u;
    }
    const std::uint64_t key = (u << 1) + kZeroKey;
    mk = key > mk ? key : mk;
  };
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {  // unrolled: the loop overhead is a large part of so short a body
    step(std::bit_cast<std::uint64_t>(x[i]));
    step(std::bit_cast<std::uint64_t>(x[i + 1]));
    step(std::bit_cast<std::uint64_t>(x[i + 2]));
    step(std::bit_cast<std::uint64_t>(x[i + 3]));
  }
  for (; i < n; ++i) step(std::bit_cast<std::uint64_t>(x[i]));
  max_key_ = mk;
  count_ += n;
}

namespace {

// The exact value of `adds` addends that chunk `index` summed into `chunk`, added to P or N.
inline void flush_chunk(std::uint64_t* pos, std::uint64_t* neg, unsigned index, std::uint64_t chunk,
                        std::uint64_t adds) {
  const unsigned biased = index & 0x7ff;
  // Every pattern in the chunk is (index << 52) | m: subtracting the top bits leaves the sum of
  // the m, exact because it is below adds * 2^52 <= 2^64.
  const std::uint64_t mantissas = chunk - adds * (static_cast<std::uint64_t>(index) << 52);
  const unsigned implicit = biased != 0;
  const u128 value = static_cast<u128>(mantissas) + (static_cast<u128>(implicit * adds) << 52);
  add_at((index >> 11) ? neg : pos, value, static_cast<int>(biased - implicit));
}

}  // namespace

void FastExactAccumulator::slow_chunk(unsigned index, std::uint64_t bits) {
  if ((index & 0x7ff) == 0x7ff) {  // NaN or infinity: the chunk stays unused
    add_special(bits);
    return;
  }
  Large& large = *large_;
  if (index == 0) sign_and_ &= bits;  // a positive zero or subnormal (see fast_exact.h)
  if (large.count[index] < 0) {
    large.touched[large.touched_count++] = static_cast<std::uint16_t>(index);
  } else {  // full: holds kChunkCapacity addends
    flush_chunk(pos_, neg_, index, large.chunk[index], kChunkCapacity);
  }
  large.chunk[index] = bits;
  large.count[index] = kChunkCapacity - 1;
}

void FastExactAccumulator::flush_touched() {
  Large& large = *large_;
  for (int i = 0; i < large.touched_count; ++i) {
    const unsigned index = large.touched[i];
    const std::uint64_t adds = static_cast<std::uint64_t>(kChunkCapacity - large.count[index]);
    flush_chunk(pos_, neg_, index, large.chunk[index], adds);
    large.count[index] = -1;
  }
  large.touched_count = 0;
}

Special FastExactAccumulator::special() const {
  if (nan_ || (pos_inf_ && neg_inf_)) return Special::nan;
  if (pos_inf_) return Special::pos_inf;
  if (neg_inf_) return Special::neg_inf;
  return Special::none;
}

bool FastExactAccumulator::all_negative_zero() const {
  if (count_ == 0) return true;
  // Every sign bit set, every finite addend a zero, and no NaN or infinity.
  return (sign_and_ >> 63) && max_key_ == kZeroKey && !nan_ && !pos_inf_ && !neg_inf_;
}

double FastExactAccumulator::max_abs() const {
  if (max_key_ < kZeroKey) return 0.0;  // no finite addend
  return std::bit_cast<double>((max_key_ - kZeroKey) >> 1);
}

int FastExactAccumulator::limb_bound() const {
  // P, N and A = P + N are below count * 2^(biased + 53) units, biased the exponent field of
  // max |x|: the limbs above hold zeros and need not be read.
  if (max_key_ < kZeroKey) return 1;
  const int top_biased = static_cast<int>((max_key_ - kZeroKey) >> 53);
  const int bits = top_biased + 53 + static_cast<int>(std::bit_width(count_));
  return std::min(kLimbs, bits / 64 + 1);
}

ExactSum FastExactAccumulator::result() {
  fold_cells();
  if (large_active_) flush_touched();
  ExactSum r;
  r.special = special();
  r.count = count_;
  r.all_negative_zero = all_negative_zero();
  r.max_abs = max_abs();
  const int size = limb_bound();
  std::uint64_t limbs[kLimbs];
  if (compare_limbs(pos_, neg_, size) >= 0) {
    subtract_limbs(pos_, neg_, limbs, size);
    set_fixed(r.sum, limbs, size, false);
  } else {
    subtract_limbs(neg_, pos_, limbs, size);
    set_fixed(r.sum, limbs, size, true);
  }
  add_limbs(pos_, neg_, limbs, size);
  set_fixed(r.abs_sum, limbs, size, false);
  return r;
}

double FastExactAccumulator::rounded(Format f) {
  switch (special()) {
    case Special::nan: return std::numeric_limits<double>::quiet_NaN();
    case Special::pos_inf: return std::numeric_limits<double>::infinity();
    case Special::neg_inf: return -std::numeric_limits<double>::infinity();
    case Special::none: break;
  }
  fold_cells();
  if (large_active_) flush_touched();
  const int size = limb_bound();
  const int order = compare_limbs(pos_, neg_, size);
  if (order == 0) return (count_ > 0 && all_negative_zero()) ? -0.0 : 0.0;
  std::uint64_t limbs[kLimbs];
  if (order > 0)
    subtract_limbs(pos_, neg_, limbs, size);
  else
    subtract_limbs(neg_, pos_, limbs, size);
  const double magnitude = round_limbs(limbs, size, f);
  return order > 0 ? magnitude : -magnitude;
}

ExactSum fast_exact_sum(std::span<const double> addends) {
  // A column of zeros (most of a wide buffer's, shapes.h) needs no accumulator: S = A = 0, and
  // its sign is -0 only when every addend is -0. The loop ends at the first non-zero.
  bool all_zero = true, all_negative_zero = true;
  for (double x : addends) {
    if (x != 0) {
      all_zero = false;
      break;
    }
    all_negative_zero = all_negative_zero && std::signbit(x);
  }
  if (all_zero) {
    ExactSum zero;
    zero.count = addends.size();
    zero.all_negative_zero = all_negative_zero;
    return zero;
  }
  FastExactAccumulator accumulator;
  accumulator.add(addends);
  return accumulator.result();
}

}  // namespace accucheck
