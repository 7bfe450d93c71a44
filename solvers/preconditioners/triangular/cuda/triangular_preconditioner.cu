// Level-scheduled triangular solves and the cusparseSpSV baseline, on a factor set up on the
// device, a thread per row in the level order. A sweep is a launch per level (few large levels) or
// one launch per triangle whose rows wait for the rows they need (many small levels,
// sync_free.cuh). A level's triangle entries are column-major so a warp reads them coalesced.

#include "solvers/preconditioners/triangular/cuda/triangular_preconditioner.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <cusparse.h>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_spmv.cuh"
#include "kernels/cuda/launch_grid.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/timing.hpp"
#include "solvers/preconditioners/triangular/cuda/factor_pattern.cuh"
#include "solvers/preconditioners/triangular/cuda/level_analysis.cuh"
#include "solvers/preconditioners/triangular/cuda/sync_free.cuh"

namespace fvmmini::cuda {

namespace {

constexpr int sweep_block = 256;  ///< threads per block of a sweep
/// The sync-free sweep's longest sleep in a wait (sync_free.cuh): its waits are short, one
/// level's hop; 64 ns took 9-11 % off the triangular pair against 256 (200³ box, natural and
/// CM orderings, H100), 0 and 32 ns no more, 128 ns half as much.
constexpr unsigned sweep_backoff_ns = 64;

// One level of a triangle as a sweep reads it.
struct LevelView {
  int size;          ///< rows in the level
  int first;         ///< their first position in rows
  int width;         ///< entries per row
  long long offset;  ///< the level's block in col/value
};

__device__ inline bool stopped(const int* status) { return status && *status != 0; }


/// One row of a level: where its entries are and its own values (Row::own).
struct RowSlots {
  int i;  ///< the row
  int p;  ///< its position in the level order
  int width, size;
  long long slot;  ///< its first slot; the next are size apart
  double b, d;
};

/// The slots of one triangle.
struct Triangle {
  const int* col;
  const double* value;

  template <class Row>
  __device__ RowSlots slots(const Row& row, const LevelView& v, int k, const int* rows) const {
    RowSlots h;
    h.p = v.first + k;
    h.i = rows ? __ldg(rows + h.p) : h.p;
    h.width = v.width;
    h.size = v.size;
    h.slot = v.offset + k;
    row.own(h);
    return h;
  }
  /// acc = f(acc, a_w, x[col_w]) over the row's entries in order, x in the level order, the
  /// entries of a chunk waited for together (sync_free.cuh). Padding (a = 0, pointing at the row
  /// itself or a neighbour) is not waited for: the row's own x is unset until it finishes.
  template <int chunk, class F>
  __device__ double fold(const RowSlots& h, double acc, const double* x, F f) const {
    for (int base = 0; base < h.width; base += chunk) {
      int c[chunk];
      double a[chunk], v[chunk];
      unsigned pending = 0;
#pragma unroll
      for (int w = 0; w < chunk; ++w) {
        c[w] = 0;
        a[w] = v[w] = 0.0;
        if (base + w < h.width) {
          const long long slot = h.slot + static_cast<long long>(base + w) * h.size;
          c[w] = __ldg(col + slot);
          a[w] = __ldg(value + slot);
        }
      }
#pragma unroll
      for (int w = 0; w < chunk; ++w)
        if (a[w] != 0.0) {
          v[w] = load_relaxed(x + c[w]);
          pending |= 1u << w;
        }
      wait_all<sweep_backoff_ns>(x, c, v, pending);
#pragma unroll
      for (int w = 0; w < chunk; ++w)
        if (base + w < h.width) acc = f(acc, a[w], v[w]);
    }
    return acc;
  }
  /// The same when every value the row needs is already written (an earlier launch); padding skipped.
  template <class F>
  __device__ double fold_complete(const RowSlots& h, double acc, const double* x, F f) const {
    for (int w = 0; w < h.width; ++w) {
      const long long slot = h.slot + static_cast<long long>(w) * h.size;
      const double a = __ldg(value + slot);
      if (a != 0.0) acc = f(acc, a, x[__ldg(col + slot)]);
    }
    return acc;
  }
};

/// How a row reads the values of earlier levels and writes its own. Waiting<chunk>: a sync-free
/// sweep (values published, waited for chunk entries at a time, outputs unset ahead of the next
/// sweep). Complete: a launch per level (earlier levels are done; nothing to publish or unset).
template <int chunk>
struct Waiting {
  template <class F>
  __device__ static double fold(const Triangle& t, const RowSlots& h, double acc, const double* x, F f) {
    return t.template fold<chunk>(h, acc, x, f);
  }
  __device__ static void store(double* p, double v) { publish(p, v); }
  __device__ static void unset(double* p) { *p = __longlong_as_double(static_cast<long long>(unset_bits)); }
};
struct Complete {
  template <class F>
  __device__ static double fold(const Triangle& t, const RowSlots& h, double acc, const double* x, F f) {
    return t.fold_complete(h, acc, x, f);
  }
  __device__ static void store(double* p, double v) { *p = v; }
  __device__ static void unset(double*) {}
};

// The vectors indexed by row (r, z, rdiag, diagonal) are in the operator's numbering; y, w and
// level_rdiag are in the level order (w and level_rdiag are z and rdiag when the orders agree).
// In a sync-free sweep, a sweep's output is unset before it starts: the forward sweep unsets the
// backward's w, the backward unsets the next forward's y, the pivots' is unset by their caller.

/// y_p = (r_i - L_i y) / d~_i
struct ForwardRow : Triangle {
  const double* rdiag;
  const double* r;
  double* y;
  double* w;
  __device__ void own(RowSlots& h) const {
    h.b = __ldg(r + h.i);
    h.d = __ldg(rdiag + h.i);
  }
  template <class Sync>
  __device__ void finish(const RowSlots& h) const {
    Sync::store(y + h.p, (h.b - Sync::fold(*this, h, 0.0, y, [](double s, double a, double x) { return s + a * x; })) * h.d);
    Sync::unset(w + h.p);
  }
};

/// z_i = w_p = y_p - U_i w / d~_i
struct BackwardRow : Triangle {
  const double* rdiag;
  double* y;
  double* w;
  double* z;
  __device__ void own(RowSlots& h) const {
    h.b = y[h.p];
    h.d = __ldg(rdiag + h.i);
  }
  template <class Sync>
  __device__ void finish(const RowSlots& h) const {
    const double v = h.b - Sync::fold(*this, h, 0.0, w, [](double s, double a, double x) { return s + a * x; }) * h.d;
    Sync::store(w + h.p, v);
    if (z != w) z[h.i] = v;
    Sync::unset(y + h.p);
  }
};

/// y_p = z_i = (r_i - L_i y) / d~_i: the forward solve alone, its result also in the operator's
/// numbering. Nothing unsets y for the next forward sweep (a backward sweep would): its caller does.
struct LowerRow : Triangle {
  const double* rdiag;
  const double* r;
  double* y;
  double* z;
  __device__ void own(RowSlots& h) const {
    h.b = __ldg(r + h.i);
    h.d = __ldg(rdiag + h.i);
  }
  template <class Sync>
  __device__ void finish(const RowSlots& h) const {
    const double v =
        (h.b - Sync::fold(*this, h, 0.0, y, [](double s, double a, double x) { return s + a * x; })) * h.d;
    Sync::store(y + h.p, v);
    z[h.i] = v;
  }
};

/// DIC and DILU pivots: 1/d~_i = 1 / (a_ii - sum_j a_ij a_ji / d~_j), the triangle's values the
/// a_ij of a symmetric matrix (a_ij a_ji = a_ij^2) or, `Product`, each slot's a_ij a_ji; the lowest
/// row whose pivot is not positive into `bad`.
template <bool Product>
struct PivotRow : Triangle {
  const double* diagonal;
  double* rdiag;
  double* level_rdiag;
  int* bad;
  __device__ void own(RowSlots& h) const { h.b = __ldg(diagonal + h.i); }
  template <class Sync>
  __device__ void finish(const RowSlots& h) const {
    const double d = Sync::fold(*this, h, h.b, level_rdiag, [](double s, double a, double r) {
      if constexpr (Product) return s - a * r;
      else return s - a * a * r;
    });
    if (!(d > 0.0) || !isfinite(d)) atomicMin(bad, h.i);
    Sync::store(level_rdiag + h.p, 1.0 / d);
    if (level_rdiag != rdiag) rdiag[h.i] = 1.0 / d;
  }
};

/// A whole triangle in one launch, a thread per row in the level order (backward: from the last
/// position), blocks by ticket so that every row a thread waits for is running or done.
template <int chunk, class Row>
__global__ void __launch_bounds__(sweep_block)
    sweep_rows(int n, bool backward, const int* __restrict__ position_level, const LevelView* __restrict__ views,
               const int* __restrict__ rows, const int* status, int* tickets, Row row) {
  const int k = take_ticket(tickets) * sweep_block + static_cast<int>(threadIdx.x);
  if (k < n && !stopped(status)) {
    const int p = backward ? n - 1 - k : k;
    const LevelView v = views[__ldg(position_level + p)];
    row.template finish<Waiting<chunk>>(row.slots(row, v, p - v.first, rows));
  }
  release_ticket(tickets);
}

/// One level, a thread per row; the levels before it were earlier launches.
template <class Row>
__global__ void __launch_bounds__(sweep_block)
    solve_level(LevelView v, const int* __restrict__ rows, const int* status, Row row) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < v.size && !stopped(status)) row.template finish<Complete>(row.slots(row, v, k, rows));
}

/// x = unset
__global__ void unset_kernel(int n, double* __restrict__ x) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = __longlong_as_double(static_cast<long long>(unset_bits));
}

/// SGS pivots: 1/a_ii.
__global__ void sgs_pivots(int n, const double* __restrict__ d, double* __restrict__ rdiag, int* bad) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if (!(d[i] > 0.0) || !isfinite(d[i])) atomicMin(bad, i);
    rdiag[i] = 1.0 / d[i];
  }
}

/// value[s] = a_f for the slot's LDU face f, 0 for padding.
__global__ void gather_faces(long long slots, const int* __restrict__ face, const double* __restrict__ upper,
                             double* __restrict__ value) {
  for (long long s = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; s < slots;
       s += static_cast<long long>(gridDim.x) * blockDim.x)
    value[s] = face[s] >= 0 ? upper[face[s]] : 0.0;
}

/// An asymmetric matrix's slots: value[s] = the slot's own coefficient of its face f, lower[f]
/// (a_{neighbour, owner}) where lower_side[s], else upper[f]; 0 for padding. Where `product` is not
/// null also product[s] = upper[f] lower[f], a_ij a_ji for DILU's pivots (the host's product, as
/// the factors commute).
__global__ void gather_sides(long long slots, const int* __restrict__ face, const std::uint8_t* __restrict__ lower_side,
                             const double* __restrict__ upper, const double* __restrict__ lower,
                             double* __restrict__ value, double* __restrict__ product) {
  for (long long s = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; s < slots;
       s += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int f = face[s];
    const double u = f >= 0 ? upper[f] : 0.0, l = f >= 0 ? lower[f] : 0.0;
    value[s] = lower_side[s] ? l : u;
    if (product) product[s] = u * l;
  }
}

/// owner[f] = the operator row of face f's owner, its lower-addressed mesh row (old_to_new null:
/// the identity).
__global__ void face_owners(int faces, const int* __restrict__ lower, const int* __restrict__ old_to_new,
                            int* __restrict__ owner) {
  for (int f = blockIdx.x * blockDim.x + threadIdx.x; f < faces; f += gridDim.x * blockDim.x)
    owner[f] = old_to_new ? old_to_new[lower[f]] : lower[f];
}

/// lower_side[s]: whether slot s holds its face's lower coefficient, a_{neighbour, owner}: its row
/// is the face's neighbour, so its column the owner (the host's rule, refresh_triangular_factor).
/// Columns are positions in the level order, `rows` their rows (null where the two agree, and for
/// the CSR's columns, which are rows); padding (face -1) is 0.
__global__ void mark_lower_side(long long slots, const int* __restrict__ col, const int* __restrict__ face,
                                const int* __restrict__ rows, const int* __restrict__ owner,
                                std::uint8_t* __restrict__ lower_side) {
  for (long long s = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; s < slots;
       s += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int f = face[s];
    lower_side[s] = f >= 0 && (rows ? rows[col[s]] : col[s]) == owner[f];
  }
}

/// The CSR position of each row's diagonal.
__global__ void find_diagonal(int n, const int* __restrict__ row_ptr, const int* __restrict__ col, int* __restrict__ slot) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    for (int e = row_ptr[i]; e < row_ptr[i + 1]; ++e)
      if (col[e] == i) slot[i] = e;
}

/// values[diag_slot[i]] = 1 / rdiag[i]: the cusparse factor's diagonal from the pivots.
__global__ void csr_pivots_kernel(int n, const int* __restrict__ diag_slot, const double* __restrict__ rdiag,
                                  double* __restrict__ values) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    values[diag_slot[i]] = 1.0 / rdiag[i];
}

/// w_i = y_i / rdiag_i (the D~ between cuSPARSE's two solves).
__global__ void scale_by_pivots(int n, const double* __restrict__ y, const double* __restrict__ rdiag,
                                double* __restrict__ w) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) w[i] = y[i] / rdiag[i];
}

/// t = r - t (t holds A z on entry), unless stopped.
__global__ void residual_kernel(int n, const double* __restrict__ r, double* __restrict__ t, const int* status) {
  if (stopped(status)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) t[i] = r[i] - t[i];
}

/// z += c, unless stopped.
__global__ void add_kernel(int n, const double* __restrict__ c, double* __restrict__ z, const int* status) {
  if (stopped(status)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) z[i] += c[i];
}

int slot_grid(long long slots) {
  return static_cast<int>(std::min<long long>((slots + reduce_block - 1) / reduce_block, 65536));
}

/// Each slot's side of its face (mark_lower_side) for `slots` slots, on the default stream.
DeviceBuffer<std::uint8_t> lower_sides(long long slots, const int* col, const int* face, const int* rows,
                                       const int* owner) {
  DeviceBuffer<std::uint8_t> side(static_cast<std::size_t>(slots));
  if (slots == 0) return side;
  mark_lower_side<<<slot_grid(slots), reduce_block>>>(slots, col, face, rows, owner, side.data());
  FVMMINI_CUDA_CHECK_LAUNCH(mark_lower_side);
  return side;
}

const double one = 1.0;

// cusparseSpSV on the factor as CSR (the pattern's own CSR: D~ + L + U, columns ascending): the
// lower solve, D~, the upper solve.
class CusparseTriangles {
 public:
  /// @param[in] upper the LDU faces' values and `rdiag` the pivots, both already on the device
  /// @param[in] lower, owner an asymmetric matrix's lower coefficients and each face's owner
  ///            (operator row), on the device; null for a symmetric matrix
  CusparseTriangles(const DevicePattern& p, DeviceBuffer<double>& rdiag, const double* upper, const double* lower,
                    const int* owner)
      : n_(p.n_rows), nnz_(static_cast<long long>(p.col.size())), face_(p.face), rdiag_(rdiag) {
    diag_slot_ = DeviceBuffer<int>(std::max(1, n_));
    find_diagonal<<<vector_grid(n_), reduce_block>>>(n_, p.row_ptr.data(), p.col.data(), diag_slot_.data());
    FVMMINI_CUDA_CHECK_LAUNCH(find_diagonal);
    values_ = DeviceBuffer<double>(std::max<long long>(nnz_, 1));
    if (owner) lower_side_ = lower_sides(nnz_, p.col.data(), face_.data(), nullptr, owner);
    fill_values(upper, lower, nullptr);
    probe_x_ = DeviceBuffer<double>(std::max(1, n_));
    probe_y_ = DeviceBuffer<double>(std::max(1, n_));
    scaled_ = DeviceBuffer<double>(std::max(1, n_));
    try {
      FVMMINI_CUSPARSE_CHECK(cusparseCreate(&handle_));
      FVMMINI_CUSPARSE_CHECK(cusparseCreateDnVec(&x_, n_, probe_x_.data(), CUDA_R_64F));
      FVMMINI_CUSPARSE_CHECK(cusparseCreateDnVec(&y_, n_, probe_y_.data(), CUDA_R_64F));
      cusparseFillMode_t fill[2] = {CUSPARSE_FILL_MODE_LOWER, CUSPARSE_FILL_MODE_UPPER};
      cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
      for (int t = 0; t < 2; ++t) {
        FVMMINI_CUSPARSE_CHECK(cusparseCreateCsr(&matrix_[t], n_, n_, nnz_, const_cast<int*>(p.row_ptr.data()),
                                                 const_cast<int*>(p.col.data()), values_.data(), CUSPARSE_INDEX_32I,
                                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        FVMMINI_CUSPARSE_CHECK(cusparseSpMatSetAttribute(matrix_[t], CUSPARSE_SPMAT_FILL_MODE, &fill[t], sizeof(fill[t])));
        FVMMINI_CUSPARSE_CHECK(cusparseSpMatSetAttribute(matrix_[t], CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof(diag)));
        FVMMINI_CUSPARSE_CHECK(cusparseSpSV_createDescr(&solve_[t]));
        std::size_t bytes = 0;
        FVMMINI_CUSPARSE_CHECK(cusparseSpSV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix_[t], x_,
                                                       y_, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, solve_[t], &bytes));
        buffer_[t] = DeviceBuffer<char>(std::max<std::size_t>(bytes, 1));
      }
      // --- the analysis, timed alone: the CSR is on the device by now
      FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
      const auto start = std::chrono::steady_clock::now();
      for (int t = 0; t < 2; ++t)
        FVMMINI_CUSPARSE_CHECK(cusparseSpSV_analysis(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix_[t], x_,
                                                     y_, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, solve_[t],
                                                     buffer_[t].data()));
      FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
      analysis_seconds_ = seconds_since(start);
    } catch (...) {
      release();
      throw;
    }
  }
  ~CusparseTriangles() { release(); }
  CusparseTriangles(const CusparseTriangles&) = delete;
  CusparseTriangles& operator=(const CusparseTriangles&) = delete;

  double analysis_seconds() const { return analysis_seconds_; }

  /// (D~ + L) y = r
  void forward(const double* r, double* y, cudaStream_t stream) { solve(0, r, y, stream); }
  /// (D~ + U) z = D~ y, z holding y on entry
  void backward(double* z, cudaStream_t stream) {
    scale_by_pivots<<<vector_grid(n_), reduce_block, 0, stream>>>(n_, z, rdiag_.data(), scaled_.data());
    FVMMINI_CUDA_CHECK_LAUNCH(scale_by_pivots);
    solve(1, scaled_.data(), z, stream);
  }

  /// The off-diagonal values from the LDU faces (device; lower ignored for a symmetric set-up),
  /// the diagonal from the device pivots, then both solves told of the new values.
  void refresh(const double* upper, const double* lower, cudaStream_t stream) {
    fill_values(upper, lower, stream);
    update_matrix(stream);
  }
  void refresh_pivots(cudaStream_t stream) {
    fill_pivots(stream);
    update_matrix(stream);
  }

 private:
  void solve(int t, const double* x, double* y, cudaStream_t stream) {
    FVMMINI_CUSPARSE_CHECK(cusparseSetStream(handle_, stream));
    FVMMINI_CUSPARSE_CHECK(cusparseDnVecSetValues(x_, const_cast<double*>(x)));
    FVMMINI_CUSPARSE_CHECK(cusparseDnVecSetValues(y_, y));
    FVMMINI_CUSPARSE_CHECK(cusparseSpSV_solve(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix_[t], x_, y_,
                                              CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, solve_[t]));
  }
  void fill_values(const double* upper, const double* lower, cudaStream_t stream) {
    if (lower_side_.size() > 0) {
      gather_sides<<<slot_grid(nnz_), reduce_block, 0, stream>>>(nnz_, face_.data(), lower_side_.data(), upper, lower,
                                                                 values_.data(), nullptr);
      FVMMINI_CUDA_CHECK_LAUNCH(gather_sides);
    } else {
      gather_faces<<<slot_grid(nnz_), reduce_block, 0, stream>>>(nnz_, face_.data(), upper, values_.data());
      FVMMINI_CUDA_CHECK_LAUNCH(gather_faces);
    }
    fill_pivots(stream);
  }
  void fill_pivots(cudaStream_t stream) {
    csr_pivots_kernel<<<vector_grid(n_), reduce_block, 0, stream>>>(n_, diag_slot_.data(), rdiag_.data(),
                                                                       values_.data());
    FVMMINI_CUDA_CHECK_LAUNCH(csr_pivots_kernel);
  }
  void update_matrix(cudaStream_t stream) {
    FVMMINI_CUSPARSE_CHECK(cusparseSetStream(handle_, stream));
    for (int t = 0; t < 2; ++t)
      FVMMINI_CUSPARSE_CHECK(cusparseSpSV_updateMatrix(handle_, solve_[t], values_.data(), CUSPARSE_SPSV_UPDATE_GENERAL));
  }
  void release() noexcept {
    for (int t = 0; t < 2; ++t) {
      if (solve_[t]) cusparseSpSV_destroyDescr(solve_[t]);
      if (matrix_[t]) cusparseDestroySpMat(matrix_[t]);
      solve_[t] = nullptr;
      matrix_[t] = nullptr;
    }
    if (x_) cusparseDestroyDnVec(x_);
    if (y_) cusparseDestroyDnVec(y_);
    if (handle_) cusparseDestroy(handle_);
    x_ = y_ = nullptr;
    handle_ = nullptr;
  }

  int n_;
  long long nnz_;
  const DeviceBuffer<int>& face_;  ///< the pattern's, kept by the owner
  DeviceBuffer<double>& rdiag_;
  DeviceBuffer<int> diag_slot_;
  DeviceBuffer<std::uint8_t> lower_side_;  ///< per CSR entry (an asymmetric matrix): lower_sides
  DeviceBuffer<double> values_, probe_x_, probe_y_, scaled_;
  DeviceBuffer<char> buffer_[2];
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t matrix_[2] = {nullptr, nullptr};
  cusparseSpSVDescr_t solve_[2] = {nullptr, nullptr};
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  double analysis_seconds_ = 0.0;
};

/// A triangle's levels, indexed by level, on the host and the device, and its widest row.
struct TriangleLevels {
  std::vector<LevelView> host;
  DeviceBuffer<LevelView> device;
  int widest = 0;
};

TriangleLevels triangle_levels(const DeviceLevels& s, const DeviceTrianglePart& part) {
  TriangleLevels t;
  for (int l = 0; l < s.levels(); ++l) {
    t.host.push_back({s.level_size(l), s.level_ptr[l], part.width[l], part.offset[l]});
    t.widest = std::max(t.widest, part.width[l]);
  }
  t.device = DeviceBuffer<LevelView>(std::span<const LevelView>(t.host));
  return t;
}

/// `row` over a whole triangle (backward: from the last level). Per level: a launch each. Sync-free:
/// one launch, its rows' entries waited for in chunks of 4, 8 or 16: the smallest that holds the
/// widest row (a wider chunk costs registers and occupancy, a narrower one a round trip per chunk;
/// H200: the 200^3 box, width 3, 0.42 ms with 8 against 0.59 ms with 16 on the colour ordering;
/// the polyhedral-like matrix, width > 8, 13.5 ms against 28.2 ms on CM).
template <class Row>
void run_sweep(LevelLaunch launch, const DeviceLevels& s, const TriangleLevels& t, bool backward, const int* status,
               int* tickets, Row row, cudaStream_t stream) {
  const int n = static_cast<int>(s.position_level.size());
  const int* rows = s.rows.size() > 0 ? s.rows.data() : nullptr;
  if (launch == LevelLaunch::per_level) {
    const int levels = static_cast<int>(t.host.size());
    for (int k = 0; k < levels; ++k) {
      const LevelView& v = t.host[backward ? levels - 1 - k : k];
      solve_level<<<(v.size + sweep_block - 1) / sweep_block, sweep_block, 0, stream>>>(v, rows, status, row);
      FVMMINI_CUDA_CHECK_LAUNCH(solve_level);
    }
    return;
  }
  const int grid = (n + sweep_block - 1) / sweep_block;
  auto sweep = [&](auto kernel) {
    kernel<<<grid, sweep_block, 0, stream>>>(n, backward, s.position_level.data(), t.device.data(), rows, status,
                                             tickets, row);
    FVMMINI_CUDA_CHECK_LAUNCH(sweep_rows);
  };
  if (t.widest <= 4) sweep(sweep_rows<4, Row>);
  else if (t.widest <= 8) sweep(sweep_rows<8, Row>);
  else sweep(sweep_rows<16, Row>);
}

}  // namespace

struct DeviceTriangularPreconditioner::Impl {
  Impl(const LduMatrix& matrix, const Permutation& op, const TriangularMethod& k, TriangularSolve s, int sw,
       DeviceSpmv* a,
       LevelLaunch asked, std::span<const label> sequence)
      : n(matrix.n_rows()),
        method(k),
        solve(s),
        sweeps(sw),
        spmv(a),
        asymmetric(!matrix.symmetric()),
        mesh_row(op.new_to_old) {
    if (sweeps < 1) throw std::invalid_argument("sweeps: " + std::to_string(sweeps) + " (must be at least 1)");
    if (sweeps > 1 && !spmv) throw std::invalid_argument("mcsgs: sweeps after the first need the operator");
    split = method.split;
    if (solve == TriangularSolve::cusparse && split != TriangleSplit::index)
      throw std::invalid_argument(
          "triangularSolve cusparse: cusparseSpSV needs triangles split by index (DIC), not by colour (mcsgs)");
    PartTimer timer;
    // --- the pattern in the operator's numbering, then the schedule's order (schedule_order's):
    // the rows in the sequence, for mcsgs then by greedy colour, ties in the sequence (the level
    // pass colouring them in that order)
    pattern = device_factor_pattern(*matrix.addressing, op, nullptr);
    timer.mark("pattern");
    // cusparseSpSV solves the triangles of the operator's CSR, split by the operator's index
    if (solve == TriangularSolve::cusparse) sequence = {};
    set_schedule_order(pattern, sequence_order(n, sequence), nullptr);
    if (split == TriangleSplit::colour) {
      LevelWorkspace workspace(n);
      DeviceLevels by_colour = find_levels(pattern, workspace, nullptr, LevelRule::colour);
      colours = by_colour.levels();
      set_schedule_order(pattern, std::move(by_colour.rows), nullptr);
    }
    timer.mark(split == TriangleSplit::colour ? "colouring" : "order");
    // --- on the device: the analysis (its workspace allocated first, as cusparseSpSV's buffer is),
    // then the triangles laid out by it
    {
      LevelWorkspace workspace(n);
      timer.mark("workspace");
      levels = find_levels(pattern, workspace, nullptr);
      timer.mark("analysis");
      analysis_seconds = timer.parts().back().second;
      lay_out_triangles(pattern, workspace, levels, nullptr);
      timer.mark("layout");
      layout_seconds = timer.parts().back().second;
    }
    launch = asked == LevelLaunch::automatic ? automatic_level_launch(n, levels.levels()) : asked;
    lower = triangle_levels(levels, levels.lower);
    upper = triangle_levels(levels, levels.upper);
    tickets = DeviceBuffer<int>(2);
    FVMMINI_CUDA_CHECK(cudaMemset(tickets.data(), 0, 2 * sizeof(int)));
    rdiag = DeviceBuffer<double>(n);
    level_y = DeviceBuffer<double>(n);
    unset(level_y.data(), nullptr);
    if (row_list()) {
      level_w = DeviceBuffer<double>(n);
      if (method.modified_diagonal) level_rdiag = DeviceBuffer<double>(n);
    }
    upper_coeff = DeviceBuffer<double>(matrix.upper.size());
    diagonal = DeviceBuffer<double>(n);
    bad_row = DeviceBuffer<int>(1);
    if (sweeps > 1) {
      residual = DeviceBuffer<double>(n);
      correction = DeviceBuffer<double>(n);
    }
    timer.mark("buffers");
    // --- an asymmetric matrix: each slot's side of its face, from the faces' owners
    DeviceBuffer<int> owner;
    if (asymmetric && n > 0) {
      owner = face_owner_rows(*matrix.addressing, op);
      lower_coeff = DeviceBuffer<double>(matrix.lower.size());
      lower_side = lower_sides(levels.lower.slots(), levels.lower.col.data(), levels.lower.face.data(), row_list(),
                               owner.data());
      upper_side = lower_sides(levels.upper.slots(), levels.upper.col.data(), levels.upper.face.data(), row_list(),
                               owner.data());
      if (method.modified_diagonal) lower_products = DeviceBuffer<double>(levels.lower.slots());
      timer.mark("sides");
    }
    set_values(matrix);
    timer.mark("values");
    if (solve == TriangularSolve::cusparse && n > 0) {
      cusparse = std::make_unique<CusparseTriangles>(pattern, rdiag, upper_coeff.data(), lower_values(matrix),
                                                     asymmetric ? owner.data() : nullptr);
      timer.mark("cusparseSpSV");
      analysis_seconds = cusparse->analysis_seconds();
      layout_seconds = 0.0;
    } else {
      pattern = DevicePattern{};  // only cuSPARSE reads it after the analysis
    }
    setup_seconds = timer.total();
    setup_parts = timer.parts();
  }

  /// Each face's owner as an operator row, on the device (temporary: the slots' sides are marked
  /// from it at set-up).
  static DeviceBuffer<int> face_owner_rows(const LduAddressing& a, const Permutation& op) {
    DeviceBuffer<int> owner(a.lower.size());
    if (a.n_faces() == 0) return owner;
    const DeviceBuffer<int> lower(std::span<const int>(a.lower));
    DeviceBuffer<int> old_to_new;
    if (!op.is_identity()) old_to_new = DeviceBuffer<int>(std::span<const int>(op.old_to_new));
    face_owners<<<vector_grid(a.n_faces()), reduce_block>>>(a.n_faces(), lower.data(),
                                                            op.is_identity() ? nullptr : old_to_new.data(),
                                                            owner.data());
    FVMMINI_CUDA_CHECK_LAUNCH(face_owners);
    return owner;
  }

  /// The device's copy of the matrix's lower coefficients for an asymmetric set-up (its upper
  /// ones where the new matrix is symmetric), after set_values uploaded them; null for a symmetric one.
  const double* lower_values(const LduMatrix& matrix) const {
    if (!asymmetric) return nullptr;
    return matrix.symmetric() ? upper_coeff.data() : lower_coeff.data();
  }

  /// The triangles' values from the faces' coefficients on the device (lower: null for a
  /// symmetric set-up, whose slots read the upper ones alone), and DILU's products, on `s`.
  void gather_values(const double* upper, const double* lower, cudaStream_t s) {
    for (DeviceTrianglePart* part : {&levels.lower, &levels.upper}) {
      if (part->slots() == 0) continue;
      if (!asymmetric) {
        gather_faces<<<slot_grid(part->slots()), reduce_block, 0, s>>>(part->slots(), part->face.data(), upper,
                                                                       part->value.data());
        FVMMINI_CUDA_CHECK_LAUNCH(gather_faces);
        continue;
      }
      const bool is_lower = part == &levels.lower;
      gather_sides<<<slot_grid(part->slots()), reduce_block, 0, s>>>(
          part->slots(), part->face.data(), (is_lower ? lower_side : upper_side).data(), upper, lower,
          part->value.data(), is_lower && pivot_products() ? lower_products.data() : nullptr);
      FVMMINI_CUDA_CHECK_LAUNCH(gather_sides);
    }
  }

  /// Whether the modified pivots read a_ij a_ji per lower slot (DILU on an asymmetric matrix).
  bool pivot_products() const { return asymmetric && method.modified_diagonal; }

  /// The triangles from the matrix's faces, the pivots from its diagonal; checked.
  /// @throws std::invalid_argument for an asymmetric matrix after a symmetric set-up
  void set_values(const LduMatrix& matrix) {
    if (n == 0) return;
    if (!matrix.symmetric() && !asymmetric)
      throw std::invalid_argument(method.name +
                                  ": an asymmetric matrix where the set-up's was symmetric (its triangles read the "
                                  "upper coefficients alone): set it up afresh");
    upper_coeff.upload(std::span<const double>(matrix.upper));
    if (asymmetric && !matrix.symmetric()) lower_coeff.upload(std::span<const double>(matrix.lower));
    std::vector<double> d(n);
    for (int i = 0; i < n; ++i) d[i] = matrix.diag[mesh_row[i]];
    diagonal.upload(std::span<const double>(d));
    gather_values(upper_coeff.data(), lower_values(matrix), nullptr);
    const int none = INT_MAX;
    bad_row.upload(std::span<const int>(&none, 1));
    pivots(diagonal.data(), nullptr);
    if (cusparse) cusparse->refresh(upper_coeff.data(), lower_values(matrix), nullptr);
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
    int bad = none;
    bad_row.download(std::span<int>(&bad, 1));
    if (bad != none) {
      double r = 0.0;
      FVMMINI_CUDA_CHECK(cudaMemcpy(&r, rdiag.data() + bad, sizeof(double), cudaMemcpyDeviceToHost));
      throw pivot_error(method, 1.0 / r, bad, mesh_row[bad]);
    }
  }

  /// x = unset, ahead of a sync-free sweep that writes it.
  void unset(double* x, cudaStream_t s) {
    if (n == 0 || launch != LevelLaunch::sync_free) return;
    unset_kernel<<<vector_grid(n), reduce_block, 0, s>>>(n, x);
    FVMMINI_CUDA_CHECK_LAUNCH(unset_kernel);
  }

  void pivots(const double* diag, cudaStream_t s) {
    if (method.modified_diagonal) {
      double* pivots_in_level_order = row_list() ? level_rdiag.data() : rdiag.data();
      unset(pivots_in_level_order, s);
      if (pivot_products())
        run_sweep(launch, levels, lower, false, nullptr, tickets.data(),
                  PivotRow<true>{{levels.lower.col.data(), lower_products.data()}, diag, rdiag.data(),
                                 pivots_in_level_order, bad_row.data()},
                  s);
      else
        run_sweep(launch, levels, lower, false, nullptr, tickets.data(),
                  PivotRow<false>{{levels.lower.col.data(), levels.lower.value.data()}, diag, rdiag.data(),
                                  pivots_in_level_order, bad_row.data()},
                  s);
    } else {
      sgs_pivots<<<vector_grid(n), reduce_block, 0, s>>>(n, diag, rdiag.data(), bad_row.data());
      FVMMINI_CUDA_CHECK_LAUNCH(sgs_pivots);
    }
  }

  const int* row_list() const { return levels.rows.size() > 0 ? levels.rows.data() : nullptr; }

  void apply_once(const double* r, double* z, const int* status, cudaStream_t s) {
    if (n == 0) return;
    if (cusparse) {
      cusparse->forward(r, z, s);
      cusparse->backward(z, s);
    } else {
      double* w = row_list() ? level_w.data() : z;
      run_sweep(launch, levels, lower, false, status, tickets.data(),
                ForwardRow{{levels.lower.col.data(), levels.lower.value.data()}, rdiag.data(), r, level_y.data(), w},
                s);
      run_sweep(launch, levels, upper, true, status, tickets.data(),
                BackwardRow{{levels.upper.col.data(), levels.upper.value.data()}, rdiag.data(), level_y.data(), w, z},
                s);
    }
  }

  /// z = (D~ + L)^-1 r: the forward sweep alone, then y unset again for the next forward sweep.
  void apply_lower(const double* r, double* z, const int* status, cudaStream_t s) {
    if (n == 0) return;
    if (cusparse) {
      cusparse->forward(r, z, s);
      return;
    }
    run_sweep(launch, levels, lower, false, status, tickets.data(),
              LowerRow{{levels.lower.col.data(), levels.lower.value.data()}, rdiag.data(), r, level_y.data(), z}, s);
    unset(level_y.data(), s);
  }

  int n;
  TriangularMethod method;
  TriangleSplit split = TriangleSplit::index;
  TriangularSolve solve;
  int sweeps;
  DeviceSpmv* spmv;
  bool asymmetric;  ///< set up on lower coefficients of their own: the slots know their sides
  std::vector<label> mesh_row;  ///< operator row -> mesh row
  label colours = 0;
  DevicePattern pattern;  ///< kept for cusparseSpSV, which reads its CSR
  DeviceLevels levels;
  LevelLaunch launch = LevelLaunch::sync_free;
  TriangleLevels lower, upper;
  DeviceBuffer<int> tickets;  ///< the sync-free sweeps' (sync_free.cuh)
  DeviceBuffer<double> rdiag, upper_coeff, diagonal, residual, correction;
  DeviceBuffer<double> level_y;                   ///< the forward sweep's result, level order
  DeviceBuffer<double> level_w, level_rdiag;      ///< the backward's result and DIC's pivots in the level order (when it differs)
  // --- an asymmetric set-up only (empty for a symmetric one)
  DeviceBuffer<double> lower_coeff;               ///< the faces' lower coefficients (refresh)
  DeviceBuffer<std::uint8_t> lower_side, upper_side;  ///< per slot of each triangle: mark_lower_side
  DeviceBuffer<double> lower_products;            ///< per lower slot a_ij a_ji (DILU's pivots)
  DeviceBuffer<int> bad_row;
  std::unique_ptr<CusparseTriangles> cusparse;
  double setup_seconds = 0.0, analysis_seconds = 0.0, layout_seconds = 0.0, refresh_seconds = 0.0;
  std::vector<std::pair<std::string, double>> setup_parts;
};

DeviceTriangularPreconditioner::DeviceTriangularPreconditioner(const LduMatrix& matrix, const Permutation& op,
                                                               const TriangularMethod& method, TriangularSolve solve,
                                                               int sweeps, DeviceSpmv* spmv, LevelLaunch launch,
                                                               std::span<const label> sequence)
    : impl_(std::make_unique<Impl>(matrix, op, method, solve, sweeps, spmv, launch, sequence)) {}

DeviceTriangularPreconditioner::~DeviceTriangularPreconditioner() = default;

void DeviceTriangularPreconditioner::apply(const double* r, double* z, const int* status, CUstream_st* stream) {
  Impl& m = *impl_;
  m.apply_once(r, z, status, stream);
  // --- each further symmetric sweep relaxes the residual: z += M^-1 (r - A z)
  for (int sweep = 1; sweep < m.sweeps; ++sweep) {
    m.spmv->apply(z, m.residual.data(), stream);
    residual_kernel<<<vector_grid(m.n), reduce_block, 0, stream>>>(m.n, r, m.residual.data(), status);
    FVMMINI_CUDA_CHECK_LAUNCH(residual_kernel);
    m.apply_once(m.residual.data(), m.correction.data(), status, stream);
    add_kernel<<<vector_grid(m.n), reduce_block, 0, stream>>>(m.n, m.correction.data(), z, status);
    FVMMINI_CUDA_CHECK_LAUNCH(add_kernel);
  }
}

void DeviceTriangularPreconditioner::refresh(const LduMatrix& matrix) {
  const auto start = std::chrono::steady_clock::now();
  impl_->set_values(matrix);
  impl_->refresh_seconds = seconds_since(start);
}

void DeviceTriangularPreconditioner::refactor(const double* diagonal, CUstream_st* stream) {
  Impl& m = *impl_;
  m.pivots(diagonal, stream);
  if (m.cusparse) m.cusparse->refresh_pivots(stream);
}

void DeviceTriangularPreconditioner::refresh_on_device(const DeviceCoefficients& c, CUstream_st* stream) {
  Impl& m = *impl_;
  const double* lower = c.lower ? c.lower : c.upper;
  if (lower != c.upper && !m.asymmetric)
    throw std::invalid_argument(m.method.name +
                                ": lower coefficients of their own where the set-up's matrix was symmetric (its "
                                "triangles read the upper coefficients alone): set it up afresh");
  if (m.n == 0) return;
  // --- as set_values, on the stream: the triangles, the pivots, cuSPARSE's CSR from both
  m.gather_values(c.upper, m.asymmetric ? lower : nullptr, stream);
  m.pivots(c.diagonal, stream);
  if (m.cusparse) m.cusparse->refresh(c.upper, lower, stream);
}

void DeviceTriangularPreconditioner::apply_lower(const double* r, double* z, const int* status, CUstream_st* stream) {
  impl_->apply_lower(r, z, status, stream);
}

double DeviceTriangularPreconditioner::analysis_seconds() const { return impl_->analysis_seconds; }

double DeviceTriangularPreconditioner::layout_seconds() const { return impl_->layout_seconds; }

LevelLaunch DeviceTriangularPreconditioner::level_launch() const { return impl_->launch; }

const TriangularMethod& DeviceTriangularPreconditioner::method() const { return impl_->method; }

LevelLaunch automatic_level_launch(long long rows, int levels) {
  return levels > 0 && rows / levels >= (1 << 16) ? LevelLaunch::per_level : LevelLaunch::sync_free;
}

PreconditionerInfo DeviceTriangularPreconditioner::info(std::int64_t nnz) const {
  const Impl& m = *impl_;
  PreconditionerInfo i;
  i.name = m.method.name + (m.solve == TriangularSolve::levels ? "" : "/" + name(m.solve));
  i.setup_seconds = m.setup_seconds;
  i.setup_parts = m.setup_parts;
  i.refresh_seconds = m.refresh_seconds;
  i.colours = m.colours;
  i.levels = m.levels.levels();
  for (int l = 0; l < m.levels.levels(); ++l) i.level_sizes.push_back(m.levels.level_size(l));
  i.spmv_equivalents = spmv_equivalents(m.n, m.levels.lower.slots() + m.levels.upper.slots(),
                                        m.levels.rows.size() == 0, m.sweeps, nnz);
  return i;
}

TriangularFactor DeviceTriangularPreconditioner::download() const {
  const Impl& m = *impl_;
  FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
  TriangularFactor t;
  t.method = m.method.name;
  t.n_rows = m.n;
  t.modified_diagonal = m.method.modified_diagonal;
  t.split = m.split;
  t.colours = m.colours;
  t.level_ptr.assign(m.levels.level_ptr.begin(), m.levels.level_ptr.end());
  t.rows_contiguous = m.levels.rows.size() == 0;
  t.rows.resize(m.n);
  if (t.rows_contiguous) std::iota(t.rows.begin(), t.rows.end(), 0);
  else m.levels.rows.download(std::span<int>(t.rows));
  for (auto [from, to] : {std::pair{&m.levels.lower, &t.lower}, std::pair{&m.levels.upper, &t.upper}}) {
    to->offset.assign(from->offset.begin(), from->offset.end());
    to->width.assign(from->width.begin(), from->width.end());
    const std::size_t slots = from->slots();
    to->col.resize(slots);
    to->face.resize(slots);
    to->value.resize(slots);
    if (slots == 0) continue;
    FVMMINI_CUDA_CHECK(cudaMemcpy(to->col.data(), from->col.data(), slots * sizeof(int), cudaMemcpyDeviceToHost));
    for (label& c : to->col) c = t.rows[c];  // positions -> rows, as the host stores them
    FVMMINI_CUDA_CHECK(cudaMemcpy(to->face.data(), from->face.data(), slots * sizeof(int), cudaMemcpyDeviceToHost));
    FVMMINI_CUDA_CHECK(cudaMemcpy(to->value.data(), from->value.data(), slots * sizeof(double), cudaMemcpyDeviceToHost));
  }
  t.mesh_row = m.mesh_row;
  t.rdiag.resize(m.n);
  if (m.n > 0) m.rdiag.download(std::span<double>(t.rdiag));
  return t;
}

}  // namespace fvmmini::cuda
