#include "solvers/preconditioners/gamg/cuda/device_hierarchy.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_rows.cuh"
#include "kernels/cuda/host_transfer.hpp"
#include "solvers/preconditioners/gamg/pair_matching.hpp"
#include "solvers/preconditioners/triangular/cuda/factor_pattern.cuh"

namespace fvmmini::cuda {

namespace {

static_assert(std::is_same_v<label, int>, "a label is the device's int");

constexpr int block = 256;
constexpr int jumps_between_looks = 4;  ///< list ranking: lines of up to 16 cells between two looks

int grid_for(long long units) { return static_cast<int>((units + block - 1) / block); }

namespace pm = pair_matching;

// --- the handshake (pair_matching.hpp)

__global__ void __launch_bounds__(block)
    face_weights(int faces, const double* __restrict__ values, const int* __restrict__ upper_slot,
                 double* __restrict__ weight) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f < faces) weight[f] = fabs(values[upper_slot[f]]);
}

__global__ void __launch_bounds__(block)
    face_ranks(int faces, const double* __restrict__ weight, const int* __restrict__ lower,
               const int* __restrict__ upper, bool nearer_first, std::uint64_t* __restrict__ rank) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f < faces) rank[f] = pm::face_rank(weight[f], lower[f], upper[f], nearer_first);
}

/// A free cell's step back along its line among the free cells: its nearest lower free neighbour
/// across a face of its own first rank among them, or -1; and 1 or 0 steps (list ranking's start).
__global__ void __launch_bounds__(block)
    line_back(int n, const int* __restrict__ row_ptr, const int* __restrict__ col, const int* __restrict__ face,
              const std::uint64_t* __restrict__ rank, const int* __restrict__ partner, int* __restrict__ back,
              int* __restrict__ steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int b = -1;
  if (partner[i] < 0) {
    std::uint64_t first = 0;  // a rank is at least 1 (pair_matching.hpp)
    for (int s = row_ptr[i]; s < row_ptr[i + 1]; ++s) {
      const int f = face[s], j = col[s];
      if (f < 0 || partner[j] >= 0) continue;
      const std::uint64_t r = rank[f];
      if (r > first) {
        first = r;
        b = j < i ? j : -1;
      } else if (r == first && j < i) {
        b = max(b, j);
      }
    }
  }
  back[i] = b;
  steps[i] = b >= 0 ? 1 : 0;
}

/// One round of list ranking (pointer jumping): steps to the line's start, doubled reach; *more
/// set where a cell's line goes on past its new reach.
__global__ void __launch_bounds__(block)
    jump(int n, const int* __restrict__ back, const int* __restrict__ steps, int* __restrict__ back_out,
         int* __restrict__ steps_out, int* __restrict__ more) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int b = back[i];
  if (b < 0) {
    back_out[i] = -1;
    steps_out[i] = steps[i];
    return;
  }
  steps_out[i] = steps[i] + steps[b];
  back_out[i] = back[b];
  if (back[b] >= 0) *more = 1;
}

/// The face that goes first among row i's faces whose other cell passes `eligible`; -1 if none.
/// A face's priority (pair_matching.hpp) is its rank and, with `place` not null, its lower cell's
/// place along its line (null: every place odd, as after the rounds).
template <class Eligible>
__device__ int first_face(int i, const int* row_ptr, const int* col, const int* face, const std::uint64_t* rank,
                          const int* place, Eligible eligible) {
  int pick = -1;
  std::uint64_t best = 0;
  for (int s = row_ptr[i]; s < row_ptr[i + 1]; ++s) {
    const int f = face[s], j = col[s];
    if (f < 0 || !eligible(j)) continue;
    const std::uint64_t p = pm::face_priority(rank[f], place ? place[min(i, j)] : 1);
    if (pick < 0 || pm::before(p, f, best, pick)) {
      pick = f;
      best = p;
    }
  }
  return pick;
}

__global__ void __launch_bounds__(block)
    pick_faces(int n, const int* __restrict__ row_ptr, const int* __restrict__ col, const int* __restrict__ face,
               const std::uint64_t* __restrict__ rank, const int* __restrict__ place, const int* __restrict__ partner,
               int* __restrict__ pick) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  pick[i] = partner[i] >= 0
                ? -1
                : first_face(i, row_ptr, col, face, rank, place, [&](int j) { return partner[j] < 0; });
}

__global__ void __launch_bounds__(block)
    handshake(int n, const int* __restrict__ pick, const int* __restrict__ lower, const int* __restrict__ upper,
              int* __restrict__ partner, int* __restrict__ paired) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int f = pick[i];
  if (f < 0) return;
  const int j = lower[f] == i ? upper[f] : lower[f];
  if (pick[j] == f) {
    partner[i] = j;
    atomicAdd(paired, 1);
  }
}

/// Each cell's pair (its least cell; a free cell joins the pair across its heaviest face, or is
/// its own) and, by atomicMin, each group's least row.
__global__ void __launch_bounds__(block)
    join_pairs(int n, const int* __restrict__ row_ptr, const int* __restrict__ col, const int* __restrict__ face,
               const std::uint64_t* __restrict__ rank, const int* __restrict__ partner,
               const int* __restrict__ lower, const int* __restrict__ upper, int* __restrict__ pair_of,
               int* __restrict__ least) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int target = i;
  if (partner[i] < 0) {
    const int f = first_face(i, row_ptr, col, face, rank, nullptr, [&](int j) { return partner[j] >= 0; });
    if (f >= 0) target = lower[f] == i ? upper[f] : lower[f];
  }
  const int p = partner[target] >= 0 ? min(target, partner[target]) : target;
  pair_of[i] = p;
  atomicMin(least + p, i);
}

/// Whether a row is its group's least (one per group; their running count numbers the groups).
__global__ void __launch_bounds__(block)
    group_leads(int n, const int* __restrict__ pair_of, const int* __restrict__ least, int* __restrict__ leads) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) leads[i] = least[pair_of[i]] == i ? 1 : 0;
}

__global__ void __launch_bounds__(block)
    number_groups(int n, const int* __restrict__ pair_of, const int* __restrict__ least,
                  const int* __restrict__ group_number, int* __restrict__ coarse_of) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) coarse_of[i] = group_number[least[pair_of[i]]];
}

// --- coarse faces: the fine faces' pairs of groups sorted

__global__ void __launch_bounds__(block)
    group_pair_keys(int faces, const int* __restrict__ lower, const int* __restrict__ upper,
                    const int* __restrict__ coarse_of, std::uint64_t n_coarse, std::uint64_t* __restrict__ key,
                    int* __restrict__ index) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= faces) return;
  const std::uint64_t a = coarse_of[lower[f]], b = coarse_of[upper[f]];
  key[f] = a == b ? n_coarse * n_coarse : min(a, b) * n_coarse + max(a, b);  // inner faces last
  index[f] = f;
}

__global__ void __launch_bounds__(block)
    face_heads(int m, const std::uint64_t* __restrict__ key, std::uint64_t inner_key, int* __restrict__ head) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < m) head[k] = key[k] != inner_key && (k == 0 || key[k] != key[k - 1]) ? 1 : 0;
}

/// The coarse faces (head positions numbered by the inclusive scan `number`), each fine face's
/// coarse face or -1 - its group, and each coarse face's run of fine faces.
__global__ void __launch_bounds__(block)
    place_coarse_faces(int m, const std::uint64_t* __restrict__ key, const int* __restrict__ sorted_face,
                       const int* __restrict__ head, const int* __restrict__ number, std::uint64_t n_coarse,
                       const int* __restrict__ lower, const int* __restrict__ coarse_of, int* __restrict__ c_lower,
                       int* __restrict__ c_upper, int* __restrict__ run_ptr, int* __restrict__ face_map) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m) return;
  const std::uint64_t inner_key = n_coarse * n_coarse;
  const int f = sorted_face[k];
  if (key[k] == inner_key) {
    face_map[f] = -1 - coarse_of[lower[f]];
    return;
  }
  const int id = number[k] - 1;
  face_map[f] = id;
  if (head[k]) {
    c_lower[id] = static_cast<int>(key[k] / n_coarse);
    c_upper[id] = static_cast<int>(key[k] % n_coarse);
    run_ptr[id] = k;
  }
  if (k + 1 == m || key[k + 1] == inner_key) run_ptr[id + 1] = k + 1;
}

/// A coarse face's weight: its fine faces' summed in fine face order (the host's order).
__global__ void __launch_bounds__(block)
    sum_runs(int runs, const int* __restrict__ run_ptr, const int* __restrict__ sorted_face,
             const double* __restrict__ fine, double* __restrict__ coarse) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= runs) return;
  double s = 0.0;
  for (int k = run_ptr[c]; k < run_ptr[c + 1]; ++k) s += fine[sorted_face[k]];
  coarse[c] = s;
}

/// Two passes of one level as one: coarse_of and face_map from the first pass's fine level.
__global__ void __launch_bounds__(block)
    compose_rows(int n, const int* __restrict__ second, int* __restrict__ coarse_of) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) coarse_of[i] = second[coarse_of[i]];
}

__global__ void __launch_bounds__(block)
    compose_faces(int faces, const int* __restrict__ second_map, const int* __restrict__ second_coarse_of,
                  int* __restrict__ face_map) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= faces) return;
  const int m = face_map[f];
  face_map[f] = m >= 0 ? second_map[m] : -1 - second_coarse_of[-1 - m];
}

// --- the Galerkin maps

/// A fine face's run: its coarse face, or past them its group's inner faces; counted per run.
__global__ void __launch_bounds__(block)
    run_keys(int faces, const int* __restrict__ face_map, int n_coarse_faces, int* __restrict__ key,
             int* __restrict__ index, int* __restrict__ count) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= faces) return;
  const int m = face_map[f];
  const int k = m >= 0 ? m : n_coarse_faces + (-1 - m);
  key[f] = k;
  index[f] = f;
  atomicAdd(count + k, 1);
}

/// Per run entry, the fine slots of what adds to the coarse a_{l,u} and a_{u,l} (to_lower null: a
/// symmetric matrix's a_{u,l} is its a_{l,u}): a fine face whose lower cell is in the coarse face's
/// upper group adds its coefficients the other way round.
__global__ void __launch_bounds__(block)
    run_sources(int m, const int* __restrict__ key, const int* __restrict__ sorted_face, int n_coarse_faces,
                const int* __restrict__ lower, const int* __restrict__ coarse_of, const int* __restrict__ c_lower,
                const int* __restrict__ upper_slot, const int* __restrict__ lower_slot, int* __restrict__ to_upper,
                int* __restrict__ to_lower) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m) return;
  const int f = sorted_face[k];
  const bool turned = key[k] < n_coarse_faces && coarse_of[lower[f]] != c_lower[key[k]];
  to_upper[k] = turned ? lower_slot[f] : upper_slot[f];
  if (to_lower) to_lower[k] = turned ? upper_slot[f] : lower_slot[f];
}

__global__ void __launch_bounds__(block)
    iota_rows(int n, const int* __restrict__ map, int* __restrict__ key, int* __restrict__ index,
              int* __restrict__ count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  key[i] = map[i];
  index[i] = i;
  if (count) atomicAdd(count + map[i], 1);
}

__global__ void __launch_bounds__(block)
    gather_int(int n, const int* __restrict__ from, const int* __restrict__ rows, int* __restrict__ to) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) to[i] = from[rows[i]];
}

__global__ void __launch_bounds__(block)
    gather_slots(int n, const long long* __restrict__ slot, const int* __restrict__ rows, long long* __restrict__ to) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) to[i] = slot[rows[i]];
}

/// A level's slots from its CSR pattern: each entry's face (-1: the diagonal) in its row.
__global__ void __launch_bounds__(block)
    pattern_slots(int n, const int* __restrict__ row_ptr, const int* __restrict__ face, const int* __restrict__ lower,
                  long long* __restrict__ diag_slot, int* __restrict__ upper_slot, int* __restrict__ lower_slot) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int s = row_ptr[i]; s < row_ptr[i + 1]; ++s) {
    const int f = face[s];
    if (f < 0)
      diag_slot[i] = s;
    else if (lower[f] == i)
      upper_slot[f] = s;
    else
      lower_slot[f] = s;
  }
}

// --- the coefficients

__global__ void __launch_bounds__(block)
    galerkin_faces(int n_faces, const int* __restrict__ run_ptr, const int* __restrict__ to_upper,
                   const int* __restrict__ to_lower, const double* __restrict__ fine,
                   const int* __restrict__ upper_slot,
                   const int* __restrict__ lower_slot, double* __restrict__ coarse, bool symmetric) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n_faces) return;
  double u = 0.0, l = 0.0;
  for (int k = run_ptr[c]; k < run_ptr[c + 1]; ++k) {
    u += fine[to_upper[k]];
    if (!symmetric) l += fine[to_lower[k]];
  }
  coarse[upper_slot[c]] = u;
  coarse[lower_slot[c]] = symmetric ? u : l;
}

/// diag_c = its rows' diagonals, then its inner faces' both coefficients (twice a_{l,u} when
/// symmetric), summed in that order as galerkin_values does.
__global__ void __launch_bounds__(block)
    galerkin_rows(int n, const int* __restrict__ row_ptr, const long long* __restrict__ row_diag,
                  const int* __restrict__ inner_ptr, const int* __restrict__ to_upper, const int* __restrict__ to_lower,
                  const double* __restrict__ fine, const long long* __restrict__ diag_slot, double* __restrict__ coarse,
                  double* __restrict__ diag, double* __restrict__ inner, bool symmetric) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  double d = 0.0;
  for (int k = row_ptr[c]; k < row_ptr[c + 1]; ++k) d += fine[row_diag[k]];
  double in = 0.0;
  for (int k = inner_ptr[c]; k < inner_ptr[c + 1]; ++k) {
    const double t = symmetric ? 2.0 * fine[to_upper[k]] : fine[to_upper[k]] + fine[to_lower[k]];
    d += t;
    in += t;
  }
  coarse[diag_slot[c]] = d;
  if (diag) diag[c] = d;
  if (inner) inner[c] = in;
}

__global__ void __launch_bounds__(block)
    read_slots(int n, const long long* __restrict__ slot, const double* __restrict__ values, double* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = values[slot[i]];
}

/// to[i] = from[i] as a 32-bit int; *too_wide = 1 where one does not fit.
__global__ void __launch_bounds__(block)
    narrow_slots(int n, const std::int64_t* __restrict__ from, int* __restrict__ to, int* __restrict__ too_wide) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::int64_t v = from[i];
  if (v < INT_MIN || v > INT_MAX) *too_wide = 1;
  to[i] = static_cast<int>(v);
}

// --- host helpers

int bits_for(std::uint64_t largest) { return std::max(1, static_cast<int>(std::bit_width(largest))); }

template <class Key>
void sort_pairs(DeviceBuffer<Key>& keys, DeviceBuffer<int>& values, int count, int end_bit, cudaStream_t s) {
  if (count == 0) return;
  DeviceBuffer<Key> keys_out(keys.size(), s);
  DeviceBuffer<int> values_out = values.stream_ordered() ? DeviceBuffer<int>(values.size(), s)
                                                         : DeviceBuffer<int>(values.size());
  std::size_t bytes = 0;
  FVMMINI_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys.data(), keys_out.data(), values.data(),
                                                     values_out.data(), count, 0, end_bit, s));
  DeviceBuffer<char> temp(std::max<std::size_t>(bytes, 1), s);
  FVMMINI_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, keys.data(), keys_out.data(), values.data(),
                                                     values_out.data(), count, 0, end_bit, s));
  keys = std::move(keys_out);
  values = std::move(values_out);
}

/// out[0..count] = the exclusive (or inclusive) running sum of in[0..count].
void scan(const int* in, int* out, int count, bool inclusive, cudaStream_t s) {
  std::size_t bytes = 0;
  if (inclusive)
    FVMMINI_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, count, s));
  else
    FVMMINI_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, count, s));
  DeviceBuffer<char> temp(std::max<std::size_t>(bytes, 1), s);
  if (inclusive)
    FVMMINI_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), bytes, in, out, count, s));
  else
    FVMMINI_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, in, out, count, s));
}

int read_int(const int* device, cudaStream_t s) {
  int value = 0;
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(&value, device, sizeof(int), cudaMemcpyDeviceToHost, s));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(s));
  return value;
}

#define FVMMINI_LAUNCH(kernel, units, s, ...)                                  \
  do {                                                                         \
    if ((units) > 0) {                                                         \
      kernel<<<grid_for(units), block, 0, s>>>(__VA_ARGS__);                   \
      FVMMINI_CUDA_CHECK_LAUNCH(kernel);                                       \
    }                                                                          \
  } while (0)

/// to = from narrowed to 32 bits on the device (copy_narrowed_to_device's twin for a map already
/// there); false where a value does not fit. Synchronises `s`.
bool narrow_on_device(const DeviceBuffer<std::int64_t>& from, DeviceBuffer<int>& to, cudaStream_t s) {
  DeviceBuffer<int> too_wide(1);
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(too_wide.data(), 0, sizeof(int), s));
  const int n = static_cast<int>(from.size());
  FVMMINI_LAUNCH(narrow_slots, n, s, n, from.data(), to.data(), too_wide.data());
  return read_int(too_wide.data(), s) == 0;
}

/// A level's faces and the CSR pattern (sorted columns, each entry's face) the matching walks.
struct Graph {
  int n = 0, faces = 0;
  const int* lower = nullptr;
  const int* upper = nullptr;
  const int* row_ptr = nullptr;
  const int* col = nullptr;
  const int* face = nullptr;
};

/// One pairing pass over `g` (pair_matching.hpp; ties to the nearer cells or the farther): the
/// groups' numbers by row; n_coarse receives their count.
DeviceBuffer<int> pair_pass(const Graph& g, const DeviceBuffer<double>& weight, bool nearer_first, int& n_coarse,
                            cudaStream_t s) {
  DeviceBuffer<std::uint64_t> rank(std::max(g.faces, 1), s);
  FVMMINI_LAUNCH(face_ranks, g.faces, s, g.faces, weight.data(), g.lower, g.upper, nearer_first, rank.data());
  DeviceBuffer<int> partner(g.n, s), pick(g.n, s), flag(1, s);
  DeviceBuffer<int> back(g.n, s), place(g.n, s), back_out(g.n, s), place_out(g.n, s);
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(partner.data(), 0xff, partner.bytes(), s));
  for (int round = 0; round < pm::max_rounds; ++round) {
    // --- the free cells' places along their lines (list ranking)
    FVMMINI_LAUNCH(line_back, g.n, s, g.n, g.row_ptr, g.col, g.face, rank.data(), partner.data(), back.data(),
                   place.data());
    for (bool more = g.n > 0; more;) {
      // a few jumps between looks at the flag (a jump past the lines' starts changes nothing): a
      // look costs a synchronisation, about what a jump over the whole level does
      for (int k = 0; k < jumps_between_looks; ++k) {
        if (k + 1 == jumps_between_looks) FVMMINI_CUDA_CHECK(cudaMemsetAsync(flag.data(), 0, sizeof(int), s));
        FVMMINI_LAUNCH(jump, g.n, s, g.n, back.data(), place.data(), back_out.data(), place_out.data(), flag.data());
        std::swap(back, back_out);
        std::swap(place, place_out);
      }
      more = read_int(flag.data(), s) != 0;
    }
    // --- the handshake
    FVMMINI_CUDA_CHECK(cudaMemsetAsync(flag.data(), 0, sizeof(int), s));
    FVMMINI_LAUNCH(pick_faces, g.n, s, g.n, g.row_ptr, g.col, g.face, rank.data(), place.data(), partner.data(),
                   pick.data());
    FVMMINI_LAUNCH(handshake, g.n, s, g.n, pick.data(), g.lower, g.upper, partner.data(), flag.data());
    if (pm::last_round(read_int(flag.data(), s), g.n)) break;
  }
  DeviceBuffer<int> pair_of(g.n, s), least(g.n, s), leads(static_cast<std::size_t>(g.n) + 1, s),
      number(static_cast<std::size_t>(g.n) + 1, s);
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(least.data(), 0x7f, least.bytes(), s));  // past every row
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(leads.data() + g.n, 0, sizeof(int), s));
  FVMMINI_LAUNCH(join_pairs, g.n, s, g.n, g.row_ptr, g.col, g.face, rank.data(), partner.data(), g.lower, g.upper,
                 pair_of.data(), least.data());
  FVMMINI_LAUNCH(group_leads, g.n, s, g.n, pair_of.data(), least.data(), leads.data());
  scan(leads.data(), number.data(), g.n + 1, false, s);
  n_coarse = read_int(number.data() + g.n, s);
  DeviceBuffer<int> coarse_of(g.n);
  FVMMINI_LAUNCH(number_groups, g.n, s, g.n, pair_of.data(), least.data(), number.data(), coarse_of.data());
  return coarse_of;
}

/// A grouping's coarse faces (sorted by (lower, upper)), the fine faces' map to them (or -1 - the
/// group of an inner face), and the coarse weights summed in fine face order.
struct CoarseFaces {
  int count = 0;
  DeviceBuffer<int> lower, upper, face_map;
  DeviceBuffer<double> weight;
};

CoarseFaces coarse_faces(const Graph& g, const int* coarse_of, int n_coarse, const DeviceBuffer<double>& weight,
                         cudaStream_t s) {
  CoarseFaces c;
  const int m = g.faces;
  c.face_map = DeviceBuffer<int>(m);
  DeviceBuffer<std::uint64_t> key(std::max(m, 1), s);
  DeviceBuffer<int> sorted(std::max(m, 1), s), head(std::max(m, 1), s), number(std::max(m, 1), s);
  const auto nc = static_cast<std::uint64_t>(n_coarse);
  FVMMINI_LAUNCH(group_pair_keys, m, s, m, g.lower, g.upper, coarse_of, nc, key.data(), sorted.data());
  sort_pairs(key, sorted, m, bits_for(nc * nc), s);
  FVMMINI_LAUNCH(face_heads, m, s, m, key.data(), nc * nc, head.data());
  if (m > 0) scan(head.data(), number.data(), m, true, s);
  c.count = m > 0 ? read_int(number.data() + m - 1, s) : 0;
  c.lower = DeviceBuffer<int>(c.count);
  c.upper = DeviceBuffer<int>(c.count);
  DeviceBuffer<int> run_ptr(static_cast<std::size_t>(c.count) + 1, s);
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(run_ptr.data(), 0, run_ptr.bytes(), s));
  FVMMINI_LAUNCH(place_coarse_faces, m, s, m, key.data(), sorted.data(), head.data(), number.data(), nc, g.lower,
                 coarse_of, c.lower.data(), c.upper.data(), run_ptr.data(), c.face_map.data());
  c.weight = DeviceBuffer<double>(c.count);
  FVMMINI_LAUNCH(sum_runs, c.count, s, c.count, run_ptr.data(), sorted.data(), weight.data(), c.weight.data());
  return c;
}

/// Rows sorted by their group (each group's rows ascending) and each group's start.
void group_rows(int n, const int* coarse_of, int n_coarse, DeviceBuffer<int>& group_ptr, DeviceBuffer<int>& rows,
                cudaStream_t s) {
  DeviceBuffer<int> key(std::max(n, 1), s), count(static_cast<std::size_t>(n_coarse) + 1, s);
  rows = DeviceBuffer<int>(std::max(n, 1));
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(count.data(), 0, count.bytes(), s));
  FVMMINI_LAUNCH(iota_rows, n, s, n, coarse_of, key.data(), rows.data(), count.data());
  sort_pairs(key, rows, n, bits_for(static_cast<std::uint64_t>(n_coarse)), s);
  group_ptr = DeviceBuffer<int>(static_cast<std::size_t>(n_coarse) + 1);
  scan(count.data(), group_ptr.data(), n_coarse + 1, false, s);
}

}  // namespace

DeviceHierarchy::DeviceHierarchy(const LduMatrix& fine, const Permutation& op, const GamgSettings& settings,
                                 const double* fine_values, const FineSlots& fine_map, cudaStream_t s)
    : fine_values_(fine_values) {
  const auto built = std::make_shared<DeviceAgglomeration>();
  DeviceAgglomeration& a = *built;
  agglomeration_ = built;
  a.fine_map = fine_map.identity;
  a.merge_levels = settings.merge_levels;
  a.n_cells_in_coarsest_level = settings.n_cells_in_coarsest_level;
  csr_.emplace_back();  // level 0: the solver's format
  const RetainedPool pool(s);  // the build's scratch comes and goes in the stream's order
  enum Part { fine_level, matching, coarse, operators };
  std::vector<std::pair<std::string, double>> parts{
      {"fine level", 0.0}, {"matching", 0.0}, {"coarse faces", 0.0}, {"operators", 0.0}};
  auto last = std::chrono::steady_clock::now();
  const auto mark = [&](Part part) {  // the stream's work so far is the part's
    FVMMINI_CUDA_CHECK(cudaStreamSynchronize(s));
    const auto now = std::chrono::steady_clock::now();
    parts[part].second += std::chrono::duration<double>(now - last).count();
    last = now;
  };
  const LduAddressing& fa = *fine.addressing;
  const int n0 = fa.n_rows, faces0 = fa.n_faces();
  const auto sizes = [&](const auto& diag, const auto& upper, const auto& lower) {
    return upper.size() == static_cast<std::size_t>(faces0) && lower.size() == static_cast<std::size_t>(faces0) &&
           diag.size() == static_cast<std::size_t>(n0);
  };
  const LduToCsrMap* host = fine_map.host;
  const DeviceSlotMap* on_device = fine_map.device;
  if (!(host ? sizes(host->diag_slot, host->upper_slot, host->lower_slot)
             : on_device && sizes(on_device->diag, on_device->upper, on_device->lower)))
    throw std::invalid_argument("DeviceHierarchy: the fine value map is not the matrix's");
  // --- the fine level: its addressing (mesh numbering) and where the solver's format keeps its values
  static_assert(sizeof(long long) == sizeof(std::int64_t));
  a.fine_slots.diag = DeviceBuffer<long long>(static_cast<std::size_t>(n0));
  // an LduMatrix holds one coefficient a face (symmetric): its a_{u,l} are read through the
  // upper slots, and the lower ones stay where the map is (an asymmetric matrix uploads them too)
  a.fine_slots.upper = DeviceBuffer<int>(static_cast<std::size_t>(faces0));
  bool narrowed = true;
  if (host) {
    copy_to_device(a.fine_slots.diag.data(), host->diag_slot.data(), a.fine_slots.diag.bytes());
    narrowed = copy_narrowed_to_device(a.fine_slots.upper.data(), host->upper_slot.data(), a.fine_slots.upper.size());
  } else {
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(a.fine_slots.diag.data(), on_device->diag.data(), a.fine_slots.diag.bytes(),
                                       cudaMemcpyDeviceToDevice, s));
    narrowed = narrow_on_device(on_device->upper, a.fine_slots.upper, s);
  }
  if (!narrowed) throw std::invalid_argument("DeviceHierarchy: the fine format holds 2^31 values or more");
  DeviceBuffer<int> lower0(std::span<const int>(fa.lower)), upper0(std::span<const int>(fa.upper));
  DeviceBuffer<int> new_to_old(std::span<const int>(op.new_to_old));
  a.fine_diag_op = DeviceBuffer<long long>(static_cast<std::size_t>(n0));
  FVMMINI_LAUNCH(gather_slots, n0, s, n0, a.fine_slots.diag.data(), new_to_old.data(), a.fine_diag_op.data());
  DevicePattern pattern = device_factor_pattern(n0, faces0, lower0.data(), upper0.data(), nullptr, s);
  DeviceBuffer<double> weight(std::max(faces0, 1));
  FVMMINI_LAUNCH(face_weights, faces0, s, faces0, fine_values, a.fine_slots.upper.data(), weight.data());
  a.levels.emplace_back();
  a.levels[0].n = n0;
  a.levels[0].nnz = fa.nnz();
  Graph level{n0, faces0, lower0.data(), upper0.data(), pattern.row_ptr.data(), pattern.col.data(),
              pattern.face.data()};
  DeviceBuffer<int> level_face = std::move(pattern.face);  // the level's pattern's faces (pass 0 walks them)
  bool nearer_first = true;
  mark(fine_level);
  while (true) {
    const int l = levels() - 1;
    // --- mergeLevels pairings make one level; one that would leave too few cells, or no fewer
    // --- than before, ends the agglomeration (the host's rule)
    DeviceBuffer<int> coarse_of, face_map;
    CoarseFaces faces;
    DevicePattern pass_pattern;
    Graph g = level;
    int passes = 0, n_coarse = 0;
    for (; passes < settings.merge_levels; ++passes) {
      if (passes > 0) {
        pass_pattern = device_factor_pattern(g.n, g.faces, faces.lower.data(), faces.upper.data(), nullptr, s);
        g = Graph{g.n, g.faces, faces.lower.data(), faces.upper.data(), pass_pattern.row_ptr.data(),
                  pass_pattern.col.data(), pass_pattern.face.data()};
      }
      int count = 0;
      DeviceBuffer<int> pass_groups = pair_pass(g, weight, nearer_first, count, s);
      mark(matching);
      if (count < settings.n_cells_in_coarsest_level || count >= g.n) break;
      CoarseFaces next = coarse_faces(g, pass_groups.data(), count, weight, s);
      if (passes == 0) {
        coarse_of = std::move(pass_groups);
        face_map = std::move(next.face_map);
      } else {
        FVMMINI_LAUNCH(compose_rows, level.n, s, level.n, pass_groups.data(), coarse_of.data());
        FVMMINI_LAUNCH(compose_faces, level.faces, s, level.faces, next.face_map.data(), pass_groups.data(),
                       face_map.data());
      }
      nearer_first = !nearer_first;  // as algebraicPair alternates its direction, pass by pass
      weight = std::move(next.weight);
      faces = std::move(next);
      n_coarse = count;
      g.n = count;
      g.faces = faces.count;
      mark(coarse);
    }
    if (passes == 0) break;
    // --- the coarse level: its csr (pattern, slots, values), the transfer and the Galerkin map
    a.levels.emplace_back();
    DeviceLevel& fine_level = a.levels[l];
    DeviceLevel& c = a.levels[l + 1];
    c.n = n_coarse;
    c.lower = std::move(faces.lower);
    c.upper = std::move(faces.upper);
    DevicePattern p = device_factor_pattern(c.n, faces.count, c.lower.data(), c.upper.data(), nullptr, s);
    const std::size_t entries = p.col.size();
    c.nnz = static_cast<std::int64_t>(entries);
    c.slots.diag = DeviceBuffer<long long>(c.n);
    c.slots.upper = DeviceBuffer<int>(faces.count);
    c.slots.lower = DeviceBuffer<int>(faces.count);
    FVMMINI_LAUNCH(pattern_slots, c.n, s, c.n, p.row_ptr.data(), p.face.data(), c.lower.data(), c.slots.diag.data(),
                   c.slots.upper.data(), c.slots.lower.data());
    c.row_ptr = std::move(p.row_ptr);
    c.col = std::move(p.col);
    csr_.push_back(make_device_csr(c.n, c.row_ptr.data(), c.col.data(), DeviceBuffer<double>(entries)));
    const DeviceSlots& fs = l == 0 ? a.fine_slots : fine_level.slots;
    // fine faces by their run (coarse face, then each group's inner faces), fine faces ascending
    DeviceGalerkin& gm = fine_level.galerkin;
    gm.n_coarse = c.n;
    gm.n_coarse_faces = faces.count;
    const int runs = faces.count + c.n;
    {
      DeviceBuffer<int> key(std::max(level.faces, 1), s), sorted(std::max(level.faces, 1), s),
          count(static_cast<std::size_t>(runs) + 1, s);
      FVMMINI_CUDA_CHECK(cudaMemsetAsync(count.data(), 0, count.bytes(), s));
      FVMMINI_LAUNCH(run_keys, level.faces, s, level.faces, face_map.data(), faces.count, key.data(), sorted.data(),
                     count.data());
      sort_pairs(key, sorted, level.faces, bits_for(static_cast<std::uint64_t>(runs)), s);
      gm.run_ptr = DeviceBuffer<int>(static_cast<std::size_t>(runs) + 1);
      scan(count.data(), gm.run_ptr.data(), runs + 1, false, s);
      gm.to_upper = DeviceBuffer<int>(std::max(level.faces, 1));
      if (!a.symmetric) gm.to_lower = DeviceBuffer<int>(std::max(level.faces, 1));
      const int* lower_slot = a.symmetric ? fs.upper.data() : fs.lower.data();
      FVMMINI_LAUNCH(run_sources, level.faces, s, level.faces, key.data(), sorted.data(), faces.count, level.lower,
                     coarse_of.data(), c.lower.data(), fs.upper.data(), lower_slot, gm.to_upper.data(),
                     a.symmetric ? nullptr : gm.to_lower.data());
    }
    // each group's rows ascending: their diagonals' slots, and in the operator's numbering the transfer
    DeviceBuffer<int> rows;
    group_rows(level.n, coarse_of.data(), c.n, gm.row_ptr, rows, s);
    gm.row_diag = DeviceBuffer<long long>(std::max(level.n, 1));
    FVMMINI_LAUNCH(gather_slots, level.n, s, level.n, fs.diag.data(), rows.data(), gm.row_diag.data());
    if (l == 0 && !op.is_identity()) {
      fine_level.coarse_of = DeviceBuffer<int>(level.n);
      FVMMINI_LAUNCH(gather_int, level.n, s, level.n, coarse_of.data(), new_to_old.data(),
                     fine_level.coarse_of.data());
      group_rows(level.n, fine_level.coarse_of.data(), c.n, fine_level.group_ptr, fine_level.group_rows, s);
    } else {
      fine_level.group_ptr = DeviceBuffer<int>(static_cast<std::size_t>(c.n) + 1);
      FVMMINI_CUDA_CHECK(cudaMemcpyAsync(fine_level.group_ptr.data(), gm.row_ptr.data(), gm.row_ptr.bytes(),
                                         cudaMemcpyDeviceToDevice, s));
      fine_level.group_rows = std::move(rows);
      fine_level.coarse_of = std::move(coarse_of);
    }
    // --- the next level's graph: its own pattern's faces for its first pass
    level_face = std::move(p.face);
    level = Graph{c.n, faces.count, c.lower.data(), c.upper.data(), c.row_ptr.data(), c.col.data(), level_face.data()};
    mark(operators);
    if (passes < settings.merge_levels) break;
  }
  a.setup_parts = parts;
  setup_parts_ = std::move(parts);
}

DeviceHierarchy::DeviceHierarchy(std::shared_ptr<const DeviceAgglomeration> shared, const double* fine_values)
    : agglomeration_(std::move(shared)), fine_values_(fine_values) {
  const auto start = std::chrono::steady_clock::now();
  csr_.emplace_back();
  for (int l = 1; l < levels(); ++l) {
    const DeviceLevel& c = level(l);
    csr_.push_back(make_device_csr(c.n, c.row_ptr.data(), c.col.data(),
                                   DeviceBuffer<double>(static_cast<std::size_t>(c.nnz))));
  }
  setup_parts_ = {{"shared agglomeration",
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()}};
}

bool DeviceHierarchy::shares(const DeviceAgglomeration& model, const GamgSettings& settings,
                             const FineSlots& fine_map) {
  return fine_map.identity && model.fine_map == fine_map.identity && model.merge_levels == settings.merge_levels &&
         model.n_cells_in_coarsest_level == settings.n_cells_in_coarsest_level;
}

void DeviceHierarchy::refresh(const std::vector<double*>& diag, const std::vector<double*>& inner, cudaStream_t s) {
  for (int l = 0; l + 1 < levels(); ++l) {
    const bool symmetric = agglomeration_->symmetric;
    const DeviceGalerkin& gm = level(l).galerkin;
    const DeviceLevel& c = level(l + 1);
    const double* fine = l == 0 ? fine_values_ : csr_[l]->device_values();
    double* coarse = csr_[l + 1]->device_values();
    const auto at = [&](const std::vector<double*>& v) {
      return static_cast<std::size_t>(l + 1) < v.size() ? v[l + 1] : nullptr;
    };
    FVMMINI_LAUNCH(galerkin_faces, gm.n_coarse_faces, s, gm.n_coarse_faces, gm.run_ptr.data(), gm.to_upper.data(),
                   gm.to_lower.data(), fine, c.slots.upper.data(), c.slots.lower.data(), coarse, symmetric);
    FVMMINI_LAUNCH(galerkin_rows, gm.n_coarse, s, gm.n_coarse, gm.row_ptr.data(), gm.row_diag.data(),
                   gm.run_ptr.data() + gm.n_coarse_faces, gm.to_upper.data(), gm.to_lower.data(), fine,
                   c.slots.diag.data(), coarse, at(diag), at(inner), symmetric);
  }
}

LduMatrix DeviceHierarchy::download(int level, cudaStream_t s) {
  if (level < 1 || level >= levels())
    throw std::out_of_range("DeviceHierarchy::download: no coarse level " + std::to_string(level));
  const DeviceLevel& c = this->level(level);
  auto addressing = std::make_shared<LduAddressing>();
  addressing->n_rows = c.n;
  addressing->lower.resize(c.lower.size());
  addressing->upper.resize(c.upper.size());
  std::vector<long long> diag_slot(c.n);
  std::vector<int> upper_slot(c.slots.upper.size());
  std::vector<double> values(static_cast<std::size_t>(c.nnz));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(s));
  c.lower.download(std::span<int>(addressing->lower));
  c.upper.download(std::span<int>(addressing->upper));
  c.slots.diag.download(std::span<long long>(diag_slot));
  c.slots.upper.download(std::span<int>(upper_slot));
  FVMMINI_CUDA_CHECK(
      cudaMemcpy(values.data(), csr_[level]->device_values(), sizeof(double) * values.size(), cudaMemcpyDeviceToHost));
  LduMatrix m = make_ldu_matrix(addressing);
  for (int i = 0; i < c.n; ++i) m.diag[i] = values[diag_slot[i]];
  for (std::size_t f = 0; f < upper_slot.size(); ++f) m.upper[f] = values[upper_slot[f]];
  return m;
}

void DeviceHierarchy::fine_diagonal(double* diag, cudaStream_t s) const {
  const int n = level(0).n;
  FVMMINI_LAUNCH(read_slots, n, s, n, agglomeration_->fine_diag_op.data(), fine_values_, diag);
}

}  // namespace fvmmini::cuda
