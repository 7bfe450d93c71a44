#pragma once
// parallelPair's rules, one definition for the host's reference pass (agglomeration.cpp) and the
// device's (cuda/device_hierarchy.cu), so that both pair the same cells.
//
// A round of the handshake: every free cell picks its first face to a free neighbour; a face
// picked from both its cells pairs them. Faces go in the order of
//   1. their weight rounded to 2^-23 relative (on a uniform mesh the weights differ by the
//      geometry's rounding alone: it must not pick),
//   2. the nearer cells in the level's numbering, or the farther, pass by pass (pass 0 nearer),
//   3. the lower cell's place along its line: of the two faces a cell has at one stride, the one
//      whose lower cell lies an even number of steps into its line goes first, where a free cell's
//      line is the free cells reached by stepping to the lower free neighbour across a face of the
//      cell's own first rank (1 and 2) among its faces to free cells, made anew each round,
//   4. a hash of the face, then the face's number.
// On a uniform box in its natural numbering every face is a tie: 2 and 3 pair the cells along x in
// one round, aligned from each row's start whatever the row's length, and a row's last cell of an
// odd row pairs with the next row's in the next round (the index's parity in place of 3 staggers
// the pairs of rows of odd length: 26 PCG iterations on the 200^3 box, whose levels reach 25^3,
// against the host's algebraicPair's 21; a hash of the face in place of 2 and 3 pairs about half
// of the cells a round in random directions: 29). The summed weights of the next pass then pick
// the pairs side by side, and its ties go to the farther cells: algebraicPair's backward pass
// takes a cell's farthest free neighbour first, and on the committee's 3-D cavity (1M, 15 steps)
// the groups flat along the lid that this gives take 6.8 pressure iterations a solve against 8.6
// for the nearer cells (algebraicPair 6.7). After the rounds a free cell joins the pair across its
// first face (by 1, 2 and 4) to a paired cell, or stays a group of one. Groups are numbered in the
// order of their least row.

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define FVMMINI_PAIR_HD __host__ __device__
#else
#define FVMMINI_PAIR_HD
#endif

namespace fvmmini::pair_matching {

/// Handshake rounds at most; a round that pairs fewer than one cell in round_share_end of the
/// level's is the last (on the polyhedral-like 100^3 matrix the rounds after such a round paired
/// 8 cells of 500 000; the cells they leave free join pairs).
constexpr int max_rounds = 16;
constexpr int round_share_end = 100;

/// Whether a round that paired `paired` cells of a level of n is the last.
FVMMINI_PAIR_HD inline bool last_round(long long paired, long long n) { return paired * round_share_end < n; }

/// A face's rank by 1 and 2 (63 bits) between cells a and b, of weight `weight` (|coefficient|,
/// whose bit pattern orders as the numbers do); nearer_first on a level's even passes.
FVMMINI_PAIR_HD inline std::uint64_t face_rank(double weight, std::int32_t a, std::int32_t b, bool nearer_first) {
  std::uint64_t bits = 0;
  static_assert(sizeof(bits) == sizeof(weight));
  const double w = weight < 0.0 ? -weight : weight;
#if defined(__CUDA_ARCH__)
  bits = static_cast<std::uint64_t>(__double_as_longlong(w));
#else
  std::memcpy(&bits, &w, sizeof(bits));
#endif
  constexpr int dropped = 29;  // of the 52 mantissa bits, for the 28 bits of the distance
  const std::uint64_t rounded = (bits + (std::uint64_t{1} << (dropped - 1))) >> dropped;  // < 2^35
  const auto stride = static_cast<std::uint32_t>(a < b ? b - a : a - b);
  constexpr std::uint32_t far = std::uint32_t{1} << (dropped - 1);
  const std::uint32_t clamped = stride < far ? stride : far - 1;
  return (rounded << (dropped - 1)) | (nearer_first ? far - clamped : clamped);
}

/// A face's priority: its rank, then whether its lower cell is an even number of steps into its line.
FVMMINI_PAIR_HD inline std::uint64_t face_priority(std::uint64_t rank, int lower_place) {
  return (rank << 1) | (lower_place % 2 == 0 ? 1 : 0);
}

FVMMINI_PAIR_HD inline std::uint32_t face_hash(std::int32_t face) {
  auto h = static_cast<std::uint32_t>(face);  // lowbias32
  h ^= h >> 16;
  h *= 0x7feb352dU;
  h ^= h >> 15;
  h *= 0x846ca68bU;
  h ^= h >> 16;
  return h;
}

/// Whether face a (its priority pa) goes before face b.
FVMMINI_PAIR_HD inline bool before(std::uint64_t pa, std::int32_t a, std::uint64_t pb, std::int32_t b) {
  if (pa != pb) return pa > pb;
  const std::uint32_t ha = face_hash(a), hb = face_hash(b);
  return ha != hb ? ha > hb : a > b;
}

}  // namespace fvmmini::pair_matching
