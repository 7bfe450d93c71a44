// Level-scheduled triangular solves (one launch per level, a thread per row; each level's
// triangle entries column-major so a warp reads them coalesced) and the cusparseSpSV baseline.

#include "kernels/cuda/triangular_preconditioner.hpp"

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <cusparse.h>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_spmv.cuh"
#include "kernels/cuda/reduction.cuh"

namespace fvmmini::cuda {

namespace {

constexpr int level_block = 128;

// One level of a triangle as the kernels read it.
struct LevelView {
  int size;               ///< rows in the level
  int first;              ///< their first position in rows
  int width;              ///< entries per row
  long long offset;       ///< the level's block in col/value
};

__device__ inline bool stopped(const int* status) { return status && *status != 0; }

__device__ inline double level_row_sum(LevelView v, int k, const int* __restrict__ col,
                                       const double* __restrict__ value, const double* __restrict__ x) {
  double s = 0.0;
  for (int w = 0; w < v.width; ++w) {
    const long long slot = v.offset + static_cast<long long>(w) * v.size + k;
    s += value[slot] * x[col[slot]];
  }
  return s;
}

/// y_i = (r_i - L_i y) / d~_i for the rows of one level.
__global__ void __launch_bounds__(level_block)
    forward_level(LevelView v, const int* __restrict__ rows, const int* __restrict__ col,
                  const double* __restrict__ value, const double* __restrict__ rdiag, const double* __restrict__ r,
                  double* y, const int* status) {
  if (stopped(status)) return;
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= v.size) return;
  const int i = rows ? rows[v.first + k] : v.first + k;
  y[i] = (r[i] - level_row_sum(v, k, col, value, y)) * rdiag[i];
}

/// z_i = y_i - U_i z / d~_i for the rows of one level (z holds y on entry).
__global__ void __launch_bounds__(level_block)
    backward_level(LevelView v, const int* __restrict__ rows, const int* __restrict__ col,
                   const double* __restrict__ value, const double* __restrict__ rdiag, double* z, const int* status) {
  if (stopped(status)) return;
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= v.size) return;
  const int i = rows ? rows[v.first + k] : v.first + k;
  z[i] -= level_row_sum(v, k, col, value, z) * rdiag[i];
}

/// DIC pivots of one level: 1/d~_i = 1 / (a_ii - sum_j a_ij^2 / d~_j).
__global__ void __launch_bounds__(level_block)
    dic_pivot_level(LevelView v, const int* __restrict__ rows, const int* __restrict__ col,
                    const double* __restrict__ value, const double* __restrict__ diagonal, double* rdiag) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= v.size) return;
  const int i = rows ? rows[v.first + k] : v.first + k;
  double d = diagonal[i];
  for (int w = 0; w < v.width; ++w) {
    const long long slot = v.offset + static_cast<long long>(w) * v.size + k;
    d -= value[slot] * value[slot] * rdiag[col[slot]];
  }
  rdiag[i] = 1.0 / d;
}

__global__ void reciprocal_kernel(int n, const double* __restrict__ d, double* __restrict__ rdiag) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) rdiag[i] = 1.0 / d[i];
}

/// values[diag_slot[i]] = 1 / rdiag[i]: the cusparse factor's diagonal from the pivots.
__global__ void csr_pivots_kernel(int n, const long long* __restrict__ diag_slot, const double* __restrict__ rdiag,
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

int level_grid(int size) { return (size + level_block - 1) / level_block; }

std::vector<int> to_int(const std::vector<label>& v) { return {v.begin(), v.end()}; }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The factor D~ + L + U as CSR in the operator's numbering (rows sorted by column), with where
// each CSR value comes from: a lower slot s (s), an upper slot s (lower slots + s), or the
// pivot of row i (-(i + 1)).
struct FactorCsr {
  std::vector<int> row_ptr, col;
  std::vector<long long> source, diag_slot;
};

FactorCsr factor_csr(const TriangularFactor& f) {
  const int n = f.n_rows;
  FactorCsr c;
  c.row_ptr.assign(n + 1, 0);
  // --- each row's real entries (padding has face -1), by triangle
  std::vector<std::vector<std::int64_t>> lower(n), upper(n);
  for (label l = 0; l < f.levels(); ++l) {
    const label size = f.level_size(l);
    for (label r = 0; r < size; ++r) {
      const label i = f.rows[f.level_ptr[l] + r];
      for (label k = 0; k < f.lower.width[l]; ++k) {
        const std::int64_t s = f.lower.offset[l] + static_cast<std::int64_t>(k) * size + r;
        if (f.lower.face[s] >= 0) lower[i].push_back(s);
      }
      for (label k = 0; k < f.upper.width[l]; ++k) {
        const std::int64_t s = f.upper.offset[l] + static_cast<std::int64_t>(k) * size + r;
        if (f.upper.face[s] >= 0) upper[i].push_back(s);
      }
    }
  }
  for (int i = 0; i < n; ++i) c.row_ptr[i + 1] = c.row_ptr[i] + static_cast<int>(lower[i].size() + 1 + upper[i].size());
  c.col.resize(c.row_ptr[n]);
  c.source.resize(c.row_ptr[n]);
  c.diag_slot.resize(n);
  for (int i = 0; i < n; ++i) {
    int pos = c.row_ptr[i];
    for (std::int64_t s : lower[i]) {  // ascending columns: make_part sorted each row
      c.col[pos] = f.lower.col[s];
      c.source[pos++] = s;
    }
    c.diag_slot[i] = pos;
    c.col[pos] = i;
    c.source[pos++] = -(i + 1);
    for (std::int64_t s : upper[i]) {
      c.col[pos] = f.upper.col[s];
      c.source[pos++] = f.lower.slots() + s;
    }
  }
  return c;
}

std::vector<double> factor_csr_values(const TriangularFactor& f, const std::vector<long long>& source) {
  std::vector<double> v(source.size());
  for (std::size_t k = 0; k < source.size(); ++k) {
    const long long s = source[k];
    v[k] = s < 0 ? 1.0 / f.rdiag[-s - 1] : s < f.lower.slots() ? f.lower.value[s] : f.upper.value[s - f.lower.slots()];
  }
  return v;
}

const double one = 1.0;

// cusparseSpSV on the factor's CSR: the lower solve, D~, the upper solve.
class CusparseTriangles {
 public:
  CusparseTriangles(const TriangularFactor& f, DeviceBuffer<double>& rdiag) : n_(f.n_rows), rdiag_(rdiag) {
    const FactorCsr csr = factor_csr(f);
    source_ = csr.source;
    row_ptr_ = DeviceBuffer<int>(std::span<const int>(csr.row_ptr));
    col_ = DeviceBuffer<int>(std::span<const int>(csr.col));
    diag_slot_ = DeviceBuffer<long long>(std::span<const long long>(csr.diag_slot));
    values_ = DeviceBuffer<double>(std::span<const double>(factor_csr_values(f, source_)));
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
        FVMMINI_CUSPARSE_CHECK(cusparseCreateCsr(&matrix_[t], n_, n_, static_cast<int64_t>(csr.col.size()),
                                                 row_ptr_.data(), col_.data(), values_.data(), CUSPARSE_INDEX_32I,
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

  void upload(const TriangularFactor& f, cudaStream_t stream) {
    values_.upload(std::span<const double>(factor_csr_values(f, source_)));
    update_matrix(stream);
  }
  /// The diagonal entries from the device pivots, then both solves told of the new values.
  void refresh_pivots(cudaStream_t stream) {
    csr_pivots_kernel<<<vector_grid(n_), reduce_block, 0, stream>>>(n_, diag_slot_.data(), rdiag_.data(),
                                                                       values_.data());
    FVMMINI_CUDA_CHECK_LAUNCH(csr_pivots_kernel);
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
  DeviceBuffer<double>& rdiag_;
  std::vector<long long> source_;
  DeviceBuffer<int> row_ptr_, col_;
  DeviceBuffer<long long> diag_slot_;
  DeviceBuffer<double> values_, probe_x_, probe_y_, scaled_;
  DeviceBuffer<char> buffer_[2];
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t matrix_[2] = {nullptr, nullptr};
  cusparseSpSVDescr_t solve_[2] = {nullptr, nullptr};
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  double analysis_seconds_ = 0.0;
};

}  // namespace

struct DeviceTriangularPreconditioner::Impl {
  Impl(const TriangularFactor& f, TriangularSolve s, int sw, DeviceSpmv* op)
      : n(f.n_rows), solve(s), sweeps(sw), spmv(op), modified_diagonal(f.modified_diagonal) {
    if (sweeps > 1 && !spmv) throw std::invalid_argument("mcsgs: sweeps after the first need the operator");
    const auto start = std::chrono::steady_clock::now();
    for (label l = 0; l < f.levels(); ++l) {
      lower_levels.push_back({f.level_size(l), f.level_ptr[l], f.lower.width[l], f.lower.offset[l]});
      upper_levels.push_back({f.level_size(l), f.level_ptr[l], f.upper.width[l], f.upper.offset[l]});
    }
    if (!f.rows_contiguous) rows = DeviceBuffer<int>(std::span<const int>(to_int(f.rows)));
    lower_col = DeviceBuffer<int>(std::span<const int>(to_int(f.lower.col)));
    upper_col = DeviceBuffer<int>(std::span<const int>(to_int(f.upper.col)));
    lower_value = DeviceBuffer<double>(f.lower.value.size());
    upper_value = DeviceBuffer<double>(f.upper.value.size());
    rdiag = DeviceBuffer<double>(n);
    upload_values(f);
    analysis_seconds = seconds_since(start);
    if (solve == TriangularSolve::cusparse) {
      if (f.split != TriangleSplit::index)
        throw std::invalid_argument(
            "triangularSolve cusparse: cusparseSpSV needs triangles split by index (DIC), not by colour (mcsgs)");
      cusparse = std::make_unique<CusparseTriangles>(f, rdiag);
      analysis_seconds += cusparse->analysis_seconds();
    }
    if (sweeps > 1) {
      residual = DeviceBuffer<double>(n);
      correction = DeviceBuffer<double>(n);
    }
  }

  void upload_values(const TriangularFactor& f) {
    lower_value.upload(std::span<const double>(f.lower.value));
    upper_value.upload(std::span<const double>(f.upper.value));
    rdiag.upload(std::span<const double>(f.rdiag));
  }

  const int* row_list() const { return rows.size() > 0 ? rows.data() : nullptr; }

  void forward(const double* r, double* y, const int* status, cudaStream_t s) {
    if (cusparse) return cusparse->forward(r, y, s);
    for (const LevelView& v : lower_levels) {
      forward_level<<<level_grid(v.size), level_block, 0, s>>>(v, row_list(), lower_col.data(), lower_value.data(),
                                                                 rdiag.data(), r, y, status);
      FVMMINI_CUDA_CHECK_LAUNCH(forward_level);
    }
  }
  void backward(double* z, const int* status, cudaStream_t s) {
    if (cusparse) return cusparse->backward(z, s);
    for (auto v = upper_levels.rbegin(); v != upper_levels.rend(); ++v) {
      backward_level<<<level_grid(v->size), level_block, 0, s>>>(*v, row_list(), upper_col.data(), upper_value.data(),
                                                                   rdiag.data(), z, status);
      FVMMINI_CUDA_CHECK_LAUNCH(backward_level);
    }
  }
  void apply_once(const double* r, double* z, const int* status, cudaStream_t s) {
    forward(r, z, status, s);
    backward(z, status, s);
  }

  int n;
  TriangularSolve solve;
  int sweeps;
  DeviceSpmv* spmv;
  bool modified_diagonal;
  std::vector<LevelView> lower_levels, upper_levels;
  DeviceBuffer<int> rows, lower_col, upper_col;
  DeviceBuffer<double> lower_value, upper_value, rdiag, residual, correction;
  std::unique_ptr<CusparseTriangles> cusparse;
  double analysis_seconds = 0.0;
};

DeviceTriangularPreconditioner::DeviceTriangularPreconditioner(const TriangularFactor& factor, TriangularSolve solve,
                                                               int sweeps, DeviceSpmv* spmv)
    : impl_(std::make_unique<Impl>(factor, solve, sweeps, spmv)) {}

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

void DeviceTriangularPreconditioner::upload(const TriangularFactor& factor) {
  Impl& m = *impl_;
  m.upload_values(factor);
  if (m.cusparse) {
    m.cusparse->upload(factor, nullptr);
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

void DeviceTriangularPreconditioner::refactor(const double* diagonal, CUstream_st* stream) {
  Impl& m = *impl_;
  if (m.modified_diagonal) {
    for (const LevelView& v : m.lower_levels) {
      dic_pivot_level<<<level_grid(v.size), level_block, 0, stream>>>(v, m.row_list(), m.lower_col.data(),
                                                                        m.lower_value.data(), diagonal, m.rdiag.data());
      FVMMINI_CUDA_CHECK_LAUNCH(dic_pivot_level);
    }
  } else {
    reciprocal_kernel<<<vector_grid(m.n), reduce_block, 0, stream>>>(m.n, diagonal, m.rdiag.data());
    FVMMINI_CUDA_CHECK_LAUNCH(reciprocal_kernel);
  }
  if (m.cusparse) m.cusparse->refresh_pivots(stream);
}

void DeviceTriangularPreconditioner::forward(const double* r, double* y, CUstream_st* stream) {
  impl_->forward(r, y, nullptr, stream);
}
void DeviceTriangularPreconditioner::backward(double* z, CUstream_st* stream) { impl_->backward(z, nullptr, stream); }
double DeviceTriangularPreconditioner::analysis_seconds() const { return impl_->analysis_seconds; }

}  // namespace fvmmini::cuda
