#include "solvers/preconditioners/gamg/cuda/device_gamg.hpp"

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_matrix.hpp"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_spmv.cuh"
#include "linalg/block_vectors.hpp"
#include "linalg/ordering/permutation.hpp"
#include "linalg/timing.hpp"
#include "solvers/distributed/cuda/device_ranks.hpp"
#include "solvers/preconditioners/gamg/cuda/device_hierarchy.cuh"
#include "solvers/preconditioners/gamg/cuda/multigrid_ops.cuh"
#include "solvers/preconditioners/gamg/dense_inverse.hpp"
#include "solvers/preconditioners/gamg/multigrid.hpp"

namespace fvmmini::cuda {

namespace {

std::vector<long long> diagonal_slots(const PreparedFormat& p) {
  std::vector<long long> slots(p.permutation.size());
  for (std::size_t i = 0; i < slots.size(); ++i) slots[i] = p.value_map->diag_slot[p.permutation.new_to_old[i]];
  return slots;
}

/// The hierarchy on the device where it builds there and has a coarse level; else null. It takes
/// `model`'s structure where DeviceHierarchy::shares. A build the device lacks the memory for (its
/// transients peak on the finest level: its addressing, pattern and sorts) gives way to the host's,
/// which needs less at once; `given_up` receives its seconds.
std::unique_ptr<DeviceHierarchy> device_hierarchy(const LduMatrix& fine, const Permutation& op,
                                                  const SolverSettings& s, DeviceSpmv& fine_spmv,
                                                  const GamgRanks& ranks, const FineSlots& fine_map,
                                                  cudaStream_t stream, double& given_up,
                                                  const std::shared_ptr<const DeviceAgglomeration>& model) {
  if (!fine_map.known() || !builds_on_device(s.gamg, ranks.across())) return nullptr;
  if (s.gamg.n_pre_sweeps != s.gamg.n_post_sweeps || s.gamg.n_vcycles < 1) return nullptr;  // the host's check says why
  FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());  // the solver's values uploaded
  const auto start = std::chrono::steady_clock::now();
  try {
    auto h = model && DeviceHierarchy::shares(*model, s.gamg, fine_map)
                 ? std::make_unique<DeviceHierarchy>(model, fine_spmv.device_values())
                 : std::make_unique<DeviceHierarchy>(fine, op, s.gamg, fine_spmv.device_values(), fine_map, stream);
    return h->levels() > 1 ? std::move(h) : nullptr;
  } catch (const CudaError& e) {
    if (!e.out_of_memory()) throw;
    cudaGetLastError();  // an allocation's failure leaves the context usable
    given_up = seconds_since(start);
    return nullptr;
  }
}

}  // namespace

struct DeviceGamg::Impl {
  struct Level {
    label n = 0;
    std::optional<PreparedFormat> prepared;  ///< levels 1 .. coarsest - 1 (value refresh)
    std::optional<DeviceMatrix> matrix;      ///< levels 1 .. coarsest - 1
    DeviceSpmv* spmv = nullptr;              ///< A of the level (level 0: the solver's)
    DeviceRanks* ranks = nullptr;            ///< across ranks, the level's halo (level 0: the solver's)
    std::unique_ptr<DeviceRanks> own_ranks;  ///< levels 1 .. coarsest - 1 across ranks
    std::unique_ptr<DeviceTriangularPreconditioner> sgs;  ///< smoother mcsgs
    DeviceBuffer<double> inv_diag;           ///< smoother jacobi
    DeviceBuffer<double> x, b;               ///< levels >= 1
    DeviceBuffer<double> ax, z;              ///< A x (then the residual) and the smoother's correction
    /// The transfer to the next level: the device hierarchy's (shared with another matrix's), or
    /// the host hierarchy's uploaded into uploaded_transfer.
    const int *coarse_of = nullptr, *group_ptr = nullptr, *group_rows = nullptr;
    DeviceBuffer<int> uploaded_transfer[3];
    DeviceBuffer<long long> diag_slot;       ///< operator row -> its diagonal in the format's values
    DeviceBuffer<double> diag, inner;        ///< levels >= 1: diagonal; twice the inner faces of each group
    DeviceBuffer<double> xk, bk, axk;        ///< reserve_block: x, b (levels >= 1) and ax of several vectors

    double* x_of(int k) { return k == 1 ? x.data() : xk.data(); }
    double* b_of(int k) { return k == 1 ? b.data() : bk.data(); }
    double* ax_of(int k) { return k == 1 ? ax.data() : axk.data(); }
  };

  /// The gathered level whole on this rank (hierarchy.gathered), in its format, and its GAMG.
  struct Whole {
    PreparedFormat prepared;
    std::optional<DeviceMatrix> matrix;
    std::unique_ptr<DeviceGamg> gamg;
    DeviceBuffer<int> padded_rows;      ///< its row -> its place among the gathered values
    DeviceBuffer<int> own_rows;         ///< this rank's row -> its row
    DeviceBuffer<long long> diag_slot;  ///< its row -> the diagonal's slot in the format's values
    DeviceBuffer<double> b, x, diag;    ///< in its ordering
    DeviceBuffer<double> diag_mine;     ///< refactor: this rank's diagonal, padded to the gather's width
  };

  /// The levels from `from` down, run by one kernel of one block (enqueue_one_block_vcycle):
  /// each level's off-diagonals as CSR in its operator numbering, the rest its Level's buffers.
  struct OneBlock {
    label from = -1;  ///< none
    std::vector<LduToCsrMap> maps;                 ///< per level from `from`: its LDU -> its CSR
    std::vector<std::vector<double>> values;       ///< host staging of the off-diagonals
    std::vector<DeviceBuffer<int>> row_ptr, col;
    std::vector<DeviceBuffer<double>> off;
    DeviceBuffer<OneBlockLevel> levels;            ///< from `from` to the coarsest
    DeviceBuffer<OneBlockLevel> block_levels;      ///< the same on the levels' buffers of several vectors
  };

  /// @param[in] model another matrix's GAMG on the same pattern, whose agglomeration this one may
  ///            take (null: none)
  Impl(const LduMatrix& fine, const Permutation& op, const SolverSettings& s, DeviceSpmv& fine_spmv,
       std::span<const label> sequence, GamgRanks r, DeviceRanks* fine_ranks, const FineSlots& fine_map,
       const DeviceGamg* model)
      : settings(s.gamg),
        device(device_hierarchy(fine, op, s, fine_spmv, r, fine_map, stream.get(), device_out_of_memory,
                                model && model->impl_->device ? model->impl_->device->agglomeration() : nullptr)),
        hierarchy([&] {
          if (device) return GamgHierarchy{};
          r.cells_to_gather = cells_to_gather(s.gamg, true);
          return build_gamg_hierarchy(fine, op, s, auto_format("cuda"), sequence, r,
                                      model && !model->impl_->device ? &model->impl_->hierarchy : nullptr);
        }()),
        count(device ? device->levels() : hierarchy.levels()) {
    PartTimer timer;  // from the hierarchy's end
    if (hierarchy.across_ranks() && !fine_ranks)
      throw std::invalid_argument("DeviceGamg: across ranks it needs the solver's DeviceRanks");
    levels.resize(count);
    if (device) describe_device_levels(s.format);
    for (label l = 0; l < count; ++l) {
      Level& v = levels[l];
      v.n = device ? device->level(l).n : hierarchy.matrix(l, fine).n_rows();
      if (l > 0) {
        v.x = DeviceBuffer<double>(v.n);
        v.b = DeviceBuffer<double>(v.n);
        v.diag = DeviceBuffer<double>(v.n);
        v.inner = DeviceBuffer<double>(v.n);
      }
      if (l == count - 1) break;
      if (l == 0) {
        v.spmv = &fine_spmv;
        v.ranks = fine_ranks;
      } else if (device) {
        const DeviceLevel& d = device->level(l);
        v.spmv = &device->csr(l);
        v.diag_slot = DeviceBuffer<long long>(d.slots.diag.size());
        FVMMINI_CUDA_CHECK(cudaMemcpy(v.diag_slot.data(), d.slots.diag.data(), d.slots.diag.bytes(),
                                      cudaMemcpyDeviceToDevice));
      } else {
        v.prepared = std::move(hierarchy.prepared[l - 1]);
        v.matrix.emplace(make_device_matrix(v.prepared->format_name, v.prepared->format, v.prepared->parameters));
        v.spmv = &v.matrix->spmv();
        v.diag_slot = DeviceBuffer<long long>(std::span<const long long>(diagonal_slots(*v.prepared)));
        if (hierarchy.across_ranks()) {
          v.own_ranks = std::make_unique<DeviceRanks>(
              *hierarchy.comm, fine_ranks->transport(),
              in_operator_rows(hierarchy.interfaces(l), hierarchy.numbering[l]), v.n);
          v.own_ranks->set_overlap(fine_ranks->overlap());
          v.ranks = v.own_ranks.get();
        }
      }
      v.ax = DeviceBuffer<double>(v.n);
      if (settings.smoother == Smoother::jacobi) v.inv_diag = DeviceBuffer<double>(v.n);
      if (device) {  // the transfer the device built, in the operator's numbering
        const DeviceLevel& d = device->level(l);
        v.coarse_of = d.coarse_of.data();
        v.group_ptr = d.group_ptr.data();
        v.group_rows = d.group_rows.data();
        continue;
      }
      const LduMatrix& m = hierarchy.matrix(l, fine);
      if (settings.smoother == Smoother::mcsgs) {
        v.sgs = std::make_unique<DeviceTriangularPreconditioner>(m, hierarchy.numbering[l], multicolour_gauss_seidel,
                                                                 TriangularSolve::levels, 1, nullptr,
                                                                 LevelLaunch::automatic, hierarchy.sequence[l]);
        hierarchy.grid[l].colours = v.sgs->info(0).colours;
        v.z = DeviceBuffer<double>(v.n);
      }
      const Transfer& t = *hierarchy.transfers[l];
      v.uploaded_transfer[0] = DeviceBuffer<int>(std::span<const int>(t.coarse_of));
      v.uploaded_transfer[1] = DeviceBuffer<int>(std::span<const int>(t.group_ptr));
      v.uploaded_transfer[2] = DeviceBuffer<int>(std::span<const int>(t.group_rows));
      v.coarse_of = v.uploaded_transfer[0].data();
      v.group_ptr = v.uploaded_transfer[1].data();
      v.group_rows = v.uploaded_transfer[2].data();
    }
    hierarchy.prepared.clear();  // moved into the levels
    if (settings.n_vcycles > 1) {
      residual = DeviceBuffer<double>(fine.n_rows());
      correction = DeviceBuffer<double>(fine.n_rows());
    }
    if (device) {
      timer.mark("levels");
      device_coefficients(&timer);
    } else if (!hierarchy.gathered) {
      coarsest = hierarchy.matrix(count - 1, fine);
      inverse = DeviceBuffer<double>(std::span<const double>(hierarchy.coarsest.inverse));
    }
    const int ranks = hierarchy.gathered ? hierarchy.comm->size() : hierarchy.coarsest.ranks;
    width = hierarchy.gathered ? hierarchy.gathered->width : hierarchy.coarsest.width;
    if (ranks > 1) {
      // --- the coarsest right-hand side padded to the widest rank's (zeros past its rows, which
      // --- the restriction never writes), and every rank's gathered
      gather_ranks = fine_ranks;
      gather_ranks->reserve_all_gather(static_cast<int>(width));
      Level& last = levels[count - 1];
      last.b = DeviceBuffer<double>(width);
      FVMMINI_CUDA_CHECK(cudaMemset(last.b.data(), 0, sizeof(double) * last.b.size()));
      gathered = DeviceBuffer<double>(static_cast<std::size_t>(ranks) * width);
    }
    set_up_one_block(fine);
    if (device)
      device_smoothers(nullptr);
    else
      upload_level_values(fine);
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
    timer.mark(device ? "smoothers" : "levels");
    if (hierarchy.gathered) {
      set_up_whole(s);
      FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
      timer.mark("gathered");
    }
    if (device_out_of_memory > 0.0) setup_parts.emplace_back("device build (out of memory)", device_out_of_memory);
    const auto& hierarchy_parts = device ? device->setup_parts() : hierarchy.setup_parts;
    setup_parts.insert(setup_parts.end(), hierarchy_parts.begin(), hierarchy_parts.end());
    setup_parts.insert(setup_parts.end(), timer.parts().begin(), timer.parts().end());
  }

  /// The log's level table for a device hierarchy: the operator's format, csr below, the dense coarsest.
  void describe_device_levels(const std::string& format) {
    for (label l = 0; l < count; ++l) {
      const DeviceLevel& d = device->level(l);
      hierarchy.grid.push_back({d.n, d.nnz, l == 0 ? format : l + 1 == count ? "dense" : "csr (built on the device)"});
    }
  }

  /// The coarsest level's dense inverse from `coarsest` (in its operator numbering).
  WholeCoarsest invert_coarsest() const {
    if (!device) return coarsest_solve(coarsest, hierarchy);
    static const std::vector<ProcessorInterface> no_interfaces;
    static const std::vector<std::vector<label>> no_rows;
    return whole_coarsest(coarsest, no_interfaces, no_rows, Communicator::serial(), {});
  }

  /// A device hierarchy's coefficients from the solver's values: the coarse matrices, each level's
  /// diagonal and inner share, and the coarsest's dense inverse (its matrix a few hundred values,
  /// inverted on the host).
  /// @param[in,out] timer where to mark the parts (coefficients, coarsest), or null
  void device_coefficients(PartTimer* timer) {
    const cudaStream_t s = stream.get();
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());  // the solver's new values uploaded
    std::vector<double*> diag(count, nullptr), inner(count, nullptr);
    for (label l = 1; l < count; ++l) {
      diag[l] = levels[l].diag.data();
      inner[l] = levels[l].inner.data();
    }
    device->refresh(diag, inner, s);
    mark(timer, "coefficients");
    coarsest = device->download(count - 1, s);
    hierarchy.coarsest = invert_coarsest();
    if (inverse.size() != hierarchy.coarsest.inverse.size())
      inverse = DeviceBuffer<double>(hierarchy.coarsest.inverse.size());
    inverse.upload(hierarchy.coarsest.inverse, s);
    mark(timer, "coarsest");
  }

  /// Jacobi's inverse diagonals and the one-block levels' off-diagonals from a device hierarchy's
  /// coefficients.
  /// @param[in,out] timer where to mark the part (smoothers), or null
  void device_smoothers(PartTimer* timer) {
    const cudaStream_t s = stream.get();
    device->fine_diagonal(levels[0].ax.data(), s);  // ax: scratch outside a V-cycle
    for (label l = 0; l + 1 < count; ++l) {
      Level& v = levels[l];
      enqueue_set_diagonal(v.n, l == 0 ? v.ax.data() : v.diag.data(), nullptr, nullptr, v.inv_diag.data(), s);
    }
    for (label l = one_block.from; l >= 0 && l + 1 < count; ++l) {
      const DeviceLevel& d = device->level(l);
      enqueue_without_diagonal(d.n, d.nnz, levels[l].spmv->device_values(), levels[l].diag_slot.data(),
                               one_block.off[static_cast<std::size_t>(l - one_block.from)].data(), s);
    }
    mark(timer, "smoothers");
  }

  /// The stream's work so far marked as the timer's part (none: nothing waited for).
  void mark(PartTimer* timer, const char* part) {
    if (!timer) return;
    FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    timer->mark(part);
  }

  /// The gathered level whole, in the field's format (or the fallback) and ordering, and its GAMG
  /// as on one rank.
  void set_up_whole(const SolverSettings& s) {
    const GatheredLevel& g = *hierarchy.gathered;
    const SolverSettings settings_whole = gathered_settings(s);
    whole = std::make_unique<Whole>();
    Whole& w = *whole;
    w.prepared = prepare_level(g.whole, settings_whole, auto_format("cuda"));
    w.matrix.emplace(make_device_matrix(w.prepared.format_name, w.prepared.format, w.prepared.parameters));
    const Permutation& p = w.prepared.permutation;
    w.gamg = std::make_unique<DeviceGamg>(g.whole, p, settings_whole, w.matrix->spmv(), w.prepared.position_before_grouping);
    w.padded_rows = DeviceBuffer<int>(std::span<const int>(g.padded_rows(p)));
    w.own_rows = DeviceBuffer<int>(std::span<const int>(g.own_rows(p)));
    w.diag_slot = DeviceBuffer<long long>(std::span<const long long>(diagonal_slots(w.prepared)));
    const label n = g.whole.n_rows();
    w.b = DeviceBuffer<double>(n);
    w.x = DeviceBuffer<double>(n);
    w.diag = DeviceBuffer<double>(n);
    w.diag_mine = DeviceBuffer<double>(width);
    FVMMINI_CUDA_CHECK(cudaMemset(w.diag_mine.data(), 0, w.diag_mine.bytes()));
    hierarchy.grid = with_whole_levels(hierarchy.grid, w.gamg->info(0).grid_levels);
  }

  /// The first level below the finest with at most one_block_rows rows and those below it in one
  /// block, where no level exchanges halos (one rank, or a gathered level's own GAMG), with the
  /// Jacobi smoother and the coarsest's dense inverse.
  void set_up_one_block(const LduMatrix& fine) {
    const bool exchanges = hierarchy.across_ranks() && hierarchy.comm->size() > 1;
    if (settings.smoother != Smoother::jacobi || exchanges || hierarchy.gathered || gather_ranks) return;
    label from = 1;
    while (from + 1 < count && levels[from].n > one_block_rows) ++from;
    if (from + 1 >= count) return;  // the coarsest alone: its one kernel already
    if (hierarchy.coarsest.ranks * hierarchy.coarsest.width != levels[count - 1].n)
      throw std::logic_error("DeviceGamg: the coarsest inverse's columns are not its rows");
    one_block.from = from;
    std::vector<OneBlockLevel> host(count - from);
    for (label l = from; l < count; ++l) {
      Level& v = levels[l];
      OneBlockLevel& o = host[l - from];
      o.n = static_cast<int>(v.n);
      o.b = v.b.data();
      o.x = v.x.data();
      if (l == count - 1) break;
      o.diag = v.diag.data();
      o.inv_diag = v.inv_diag.data();
      o.ax = v.ax.data();
      o.coarse_of = v.coarse_of;
      o.group_ptr = v.group_ptr;
      o.group_rows = v.group_rows;
      hierarchy.grid[l].format = "csr (one block)";  // the log's level table: what runs
      if (device) {  // its csr's pattern; the off-diagonals a copy of its values (device_smoothers)
        const DeviceLevel& d = device->level(l);
        o.row_ptr = d.row_ptr.data();
        o.col = d.col.data();
        one_block.off.emplace_back(static_cast<std::size_t>(d.nnz));
        o.off = one_block.off.back().data();
        continue;
      }
      LduToCsrMap map;
      const CsrMatrix csr = permuted_csr(hierarchy.matrix(l, fine), hierarchy.numbering[l], &map);
      const std::vector<int> row_ptr(csr.row_ptr.begin(), csr.row_ptr.end());  // a few thousand rows
      one_block.row_ptr.emplace_back(std::span<const int>(row_ptr));
      one_block.col.emplace_back(std::span<const int>(csr.col));
      one_block.off.emplace_back(static_cast<std::size_t>(csr.nnz()));
      one_block.values.emplace_back(static_cast<std::size_t>(csr.nnz()));
      one_block.maps.push_back(std::move(map));
      o.row_ptr = one_block.row_ptr.back().data();
      o.col = one_block.col.back().data();
      o.off = one_block.off.back().data();
    }
    one_block.levels = DeviceBuffer<OneBlockLevel>(std::span<const OneBlockLevel>(host));
  }

  /// The one-block levels' off-diagonals from the host's matrices (their diagonals: Level::diag).
  void upload_one_block_values(const LduMatrix& fine) {
    for (label l = one_block.from; l >= 0 && l + 1 < count; ++l) {
      const std::size_t k = static_cast<std::size_t>(l - one_block.from);
      std::vector<double>& values = one_block.values[k];
      refresh_csr_values(hierarchy.matrix(l, fine), one_block.maps[k], values);
      const LduToCsrMap& map = one_block.maps[k];
      for (const std::int64_t slot : map.diag_slot) values[slot] = 0.0;
      one_block.off[k].upload(values);
    }
  }

  /// Jacobi's inverse diagonals and the groups' inner sums from the host's matrices, into the
  /// buffers the V-cycle reads (their addresses do not change after the set-up).
  void upload_level_values(const LduMatrix& fine) {
    for (label l = 0; l < count; ++l) {
      Level& v = levels[l];
      const LduMatrix& m = hierarchy.matrix(l, fine);
      if (l + 1 < count && settings.smoother == Smoother::jacobi) {
        // in place: the CG's graphs hold the buffer's address
        const std::vector<double> inv = inverse_diagonal(m, hierarchy.numbering[l]);
        if (v.inv_diag.size() != inv.size()) v.inv_diag = DeviceBuffer<double>(inv.size());
        v.inv_diag.upload(inv);
      }
      if (l == 0) continue;
      // --- inner_c = diag_c - the sum of its rows' diagonals one level finer
      const LduMatrix& finer = hierarchy.matrix(l - 1, fine);
      const std::vector<label>& coarse_of = hierarchy.agglomeration.agglomerations[l - 1]->coarse_of;
      std::vector<double> inner(m.diag.begin(), m.diag.end());
      for (label i = 0; i < finer.n_rows(); ++i) inner[coarse_of[i]] -= finer.diag[i];
      std::vector<double> inner_op(v.n), diag_op(v.n);
      permute_to_new(hierarchy.numbering[l], inner, inner_op);
      permute_to_new(hierarchy.numbering[l], m.diag, diag_op);
      v.inner.upload(inner_op);
      v.diag.upload(diag_op);
    }
    upload_one_block_values(fine);
  }

  // --- the V-cycle

  /// y = A x on the level, across ranks with its interfaces' couplings; k vectors (one rank).
  void multiply(Level& v, const double* x, double* y, cudaStream_t s, int k = 1) {
    if (k > 1) return v.spmv->apply_block(k, x, y, nullptr, s);
    if (v.ranks) v.ranks->start_halo(x, s);
    v.spmv->apply(x, y, s);
    if (v.ranks) v.ranks->finish_halo(y, s);
  }

  /// Whether the V-cycle takes k vectors together: the jacobi smoother, no level exchanging a halo
  /// or gathered, every level's format with a multi-vector SpMV of k.
  bool applies_block(int k) const {
    if (k < 1 || k > max_block_vectors || settings.smoother != Smoother::jacobi || gather_ranks || whole) return false;
    for (label l = 0; l + 1 < count; ++l)
      if (levels[l].ranks || levels[l].spmv->max_block() < k) return false;
    return true;
  }

  /// The levels' buffers of max_block_vectors vectors (and the one-block levels' view of them).
  void reserve_block() {
    if (blocked) return;
    const auto k = static_cast<std::size_t>(max_block_vectors);
    for (label l = 0; l < count; ++l) {
      Level& v = levels[l];
      const auto values = static_cast<std::size_t>(v.n) * k;
      if (l > 0) {
        v.xk = DeviceBuffer<double>(values);
        v.bk = DeviceBuffer<double>(values);
      }
      if (l + 1 < count) v.axk = DeviceBuffer<double>(values);
    }
    if (settings.n_vcycles > 1) {
      residual_k = DeviceBuffer<double>(static_cast<std::size_t>(levels[0].n) * k);
      correction_k = DeviceBuffer<double>(residual_k.size());
    }
    if (one_block.from > 0) {
      std::vector<OneBlockLevel> host(static_cast<std::size_t>(count - one_block.from));
      one_block.levels.download(std::span<OneBlockLevel>(host));
      for (label l = one_block.from; l < count; ++l) {
        OneBlockLevel& o = host[static_cast<std::size_t>(l - one_block.from)];
        o.b = levels[l].bk.data();
        o.x = levels[l].xk.data();
        if (l + 1 < count) o.ax = levels[l].axk.data();
      }
      one_block.block_levels = DeviceBuffer<OneBlockLevel>(std::span<const OneBlockLevel>(host));
    }
    blocked = true;
  }

  /// x = the coarsest level's solution: this rank's rows of the whole inverse times every rank's
  /// b, or gathered, this rank's rows of the whole level's V-cycle.
  void solve_coarsest(Level& v, const double* b, double* x, const int* status, cudaStream_t s) {
    const WholeCoarsest& c = hierarchy.coarsest;
    const double* all = b;
    if (gather_ranks) {
      if (b != v.b.data()) {  // a hierarchy of one level: the CG's r, unpadded
        FVMMINI_CUDA_CHECK(cudaMemcpyAsync(v.b.data(), b, sizeof(double) * v.n, cudaMemcpyDeviceToDevice, s));
        b = v.b.data();
      }
      gather_ranks->all_gather(b, gathered.data(), width, s);
      all = gathered.data();
    }
    if (whole) {
      Whole& w = *whole;
      const auto n = static_cast<int>(w.b.size());
      enqueue_gather(n, w.padded_rows.data(), all, w.b.data(), status, s);
      w.gamg->apply(w.b.data(), w.x.data(), status, s);
      enqueue_gather(v.n, w.own_rows.data(), w.x.data(), x, status, s);
      return;
    }
    enqueue_dense_multiply(v.n, c.ranks * c.width, inverse.data(), all, x, status, s);
  }

  void correct(Level& v, const double* b, double* x, const int* status, cudaStream_t s, int k = 1) {
    // x += M^-1 (b - A x)
    if (k > 1) {
      multiply(v, x, v.axk.data(), s, k);
      return enqueue_jacobi_correct(v.n, jacobi_smoother_weight, v.inv_diag.data(), b, v.axk.data(), x, status, s, k);
    }
    multiply(v, x, v.ax.data(), s);
    if (v.sgs) {
      enqueue_residual(v.n, b, v.ax.data(), v.ax.data(), status, s);
      v.sgs->apply(v.ax.data(), v.z.data(), status, s);
      enqueue_add(v.n, v.z.data(), x, status, s);
    } else {
      enqueue_jacobi_correct(v.n, jacobi_smoother_weight, v.inv_diag.data(), b, v.ax.data(), x, status, s);
    }
  }

  /// Whether level l's first Jacobi sweep from zero is done by the restriction that fills its b.
  bool starts_in_restriction(label l) const {
    return l > 0 && l + 1 < count && settings.smoother == Smoother::jacobi && settings.n_pre_sweeps > 0;
  }

  /// One V-cycle from level l on k vectors (k > 1: the levels' block buffers, reserve_block).
  void cycle(label l, const double* b, double* x, const int* status, cudaStream_t s, int k = 1) {
    Level& v = levels[l];
    if (one_block.from > 0 && l >= one_block.from && l + 1 < count) {  // the coarsest alone: solve_coarsest
      if (b != v.b_of(k) || x != v.x_of(k)) throw std::logic_error("DeviceGamg: a one-block level's own b and x");
      const DeviceBuffer<OneBlockLevel>& view = k == 1 ? one_block.levels : one_block.block_levels;
      return enqueue_one_block_vcycle(view.data() + (l - one_block.from), static_cast<int>(count - 1 - l),
                                      inverse.data(), static_cast<int>(levels[count - 1].n), jacobi_smoother_weight,
                                      settings.correction_scale, settings.n_pre_sweeps, starts_in_restriction(l),
                                      status, s, k);
    }
    if (l == count - 1) {
      if (k == 1) return solve_coarsest(v, b, x, status, s);
      return enqueue_dense_multiply(static_cast<int>(v.n), static_cast<int>(v.n), inverse.data(), b, x, status, s, k);
    }
    // --- pre-smooth from zero (where the restriction has not)
    if (!starts_in_restriction(l)) {
      if (settings.n_pre_sweeps == 0)
        FVMMINI_CUDA_CHECK(cudaMemsetAsync(x, 0, sizeof(double) * v.n * k, s));
      else if (v.sgs)
        v.sgs->apply(b, x, status, s);
      else
        enqueue_jacobi_start(v.n, jacobi_smoother_weight, v.inv_diag.data(), b, x, status, s, k);
    }
    for (int sweep = 1; sweep < settings.n_pre_sweeps; ++sweep) correct(v, b, x, status, s, k);
    // --- restrict the residual, correct from the coarser level, post-smooth
    Level& next = levels[l + 1];
    multiply(v, x, v.ax_of(k), s, k);
    const bool start = starts_in_restriction(l + 1);
    enqueue_restrict_residual(next.n, v.group_ptr, v.group_rows, b, v.ax_of(k), next.b_of(k), status, s,
                              jacobi_smoother_weight, start ? next.inv_diag.data() : nullptr,
                              start ? next.x_of(k) : nullptr, k);
    cycle(l + 1, next.b_of(k), next.x_of(k), status, s, k);
    enqueue_prolong_add(v.n, v.coarse_of, settings.correction_scale, next.x_of(k), x, status, s, k);
    for (int sweep = 0; sweep < settings.n_post_sweeps; ++sweep) correct(v, b, x, status, s, k);
  }

  GamgSettings settings;
  double device_out_of_memory = 0.0;           ///< seconds of a device build given up for want of memory
  Stream stream;                               ///< the device hierarchy's set-up and refresh
  std::unique_ptr<DeviceHierarchy> device;     ///< built on the device; null: the host's hierarchy
  GamgHierarchy hierarchy;                     ///< the host's (a device hierarchy: its grid and coarsest alone)
  label count = 0;                             ///< levels
  std::vector<Level> levels;
  LduMatrix coarsest;                          ///< not gathered: the coarsest matrix (refactor renews its inverse)
  DeviceBuffer<double> inverse;                ///< WholeCoarsest::inverse
  DeviceRanks* gather_ranks = nullptr;         ///< across ranks: gathers the coarsest right-hand sides
  DeviceBuffer<double> gathered;               ///< every rank's coarsest right-hand side
  label width = 0;                             ///< the gather's values a rank
  std::unique_ptr<Whole> whole;                ///< the gathered level's GAMG (hierarchy.gathered)
  OneBlock one_block;                          ///< the coarse levels in one kernel
  DeviceBuffer<double> residual, correction;   ///< level 0, V-cycles after the first
  DeviceBuffer<double> residual_k, correction_k;  ///< the same of several vectors (reserve_block)
  bool blocked = false;                        ///< reserve_block done
  double setup_seconds = 0.0, refresh_seconds = 0.0;
  std::vector<std::pair<std::string, double>> refresh_parts;  ///< the last refresh's
  std::vector<std::pair<std::string, double>> setup_parts;  ///< the hierarchy's, then levels[, gathered]
};

DeviceGamg::DeviceGamg(const LduMatrix& fine, const Permutation& op, const SolverSettings& settings,
                       DeviceSpmv& fine_spmv, std::span<const label> sequence, GamgRanks ranks,
                       DeviceRanks* fine_ranks, FineSlots fine_map, const DeviceGamg* same_pattern)
    : impl_([&] {
        const auto start = std::chrono::steady_clock::now();
        auto impl = std::make_unique<Impl>(fine, op, settings, fine_spmv, sequence, ranks, fine_ranks, fine_map,
                                           same_pattern);
        impl->setup_seconds = seconds_since(start);
        return impl;
      }()) {}

DeviceGamg::~DeviceGamg() = default;

void DeviceGamg::apply(const double* r, double* z, const int* status, CUstream_st* stream) {
  Impl& m = *impl_;
  m.cycle(0, r, z, status, stream);
  Impl::Level& fine = m.levels[0];
  for (int k = 1; k < m.settings.n_vcycles; ++k) {
    // --- z += B (r - A z)
    m.multiply(fine, z, m.residual.data(), stream);
    enqueue_residual(fine.n, r, m.residual.data(), m.residual.data(), status, stream);
    m.cycle(0, m.residual.data(), m.correction.data(), status, stream);
    enqueue_add(fine.n, m.correction.data(), z, status, stream);
  }
}

bool DeviceGamg::applies_block(int k) const { return impl_->applies_block(k); }

void DeviceGamg::reserve_block() { impl_->reserve_block(); }

void DeviceGamg::apply_block(int k, const double* r, double* z, const int* status, CUstream_st* stream) {
  Impl& m = *impl_;
  if (!m.blocked || !m.applies_block(k))
    throw std::logic_error("DeviceGamg::apply_block: " + std::to_string(k) + " vectors " +
                           (m.blocked ? "are not taken together here" : "before reserve_block"));
  m.cycle(0, r, z, status, stream, k);
  Impl::Level& fine = m.levels[0];
  const int values = static_cast<int>(fine.n) * k;
  for (int cycle_count = 1; cycle_count < m.settings.n_vcycles; ++cycle_count) {
    // --- Z += B (R - A Z)
    m.multiply(fine, z, m.residual_k.data(), stream, k);
    enqueue_residual(values, r, m.residual_k.data(), m.residual_k.data(), status, stream);
    m.cycle(0, m.residual_k.data(), m.correction_k.data(), status, stream, k);
    enqueue_add(values, m.correction_k.data(), z, status, stream);
  }
}

int DeviceGamg::levels() const { return static_cast<int>(impl_->count); }

void DeviceGamg::cycle_from(int level, const double* r, double* z, const int* status, CUstream_st* stream) {
  Impl& m = *impl_;
  if (level < 0 || level >= levels()) throw std::out_of_range("DeviceGamg::cycle_from: no level " + std::to_string(level));
  if (level == 0) return m.cycle(0, r, z, status, stream);
  Impl::Level& v = m.levels[level];
  m.cycle(level, v.b.data(), v.x.data(), status, stream);
}

void DeviceGamg::refresh(const LduMatrix& matrix) {
  Impl& m = *impl_;
  const auto start = std::chrono::steady_clock::now();
  PartTimer timer;
  if (m.device) {
    m.device_coefficients(&timer);
    m.device_smoothers(&timer);
    m.refresh_seconds = seconds_since(start);
    m.refresh_parts = timer.parts();
    return;
  }
  refresh_gamg_hierarchy(matrix, m.hierarchy);
  timer.mark("coarse matrices");
  for (label l = 0; l + 1 < m.count; ++l) {
    Impl::Level& v = m.levels[l];
    if (v.prepared) {
      refresh_format_values(m.hierarchy.matrix(l, matrix), *v.prepared);
      v.matrix->upload_values(v.prepared->format.values());
    }
    if (v.own_ranks) v.own_ranks->refresh_coefficients(in_operator_rows(m.hierarchy.interfaces(l), m.hierarchy.numbering[l]));
  }
  timer.mark("operators");
  for (label l = 0; l + 1 < m.count; ++l)
    if (m.levels[l].sgs) m.levels[l].sgs->refresh(m.hierarchy.matrix(l, matrix));
  if (m.whole) {
    Impl::Whole& w = *m.whole;
    refresh_format_values(m.hierarchy.gathered->whole, w.prepared);
    w.matrix->upload_values(w.prepared.format.values());
    w.gamg->refresh(m.hierarchy.gathered->whole);
  } else {
    m.coarsest = m.hierarchy.matrix(m.count - 1, matrix);
    m.inverse.upload(m.hierarchy.coarsest.inverse);
  }
  m.upload_level_values(matrix);
  FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
  timer.mark("smoothers");
  m.refresh_seconds = seconds_since(start);
  m.refresh_parts = timer.parts();
}

void DeviceGamg::refresh_on_device(const DeviceCoefficients&, CUstream_st*) {
  Impl& m = *impl_;
  if (!m.device) throw std::logic_error("GAMG refreshes on the device only a hierarchy built there");
  const auto start = std::chrono::steady_clock::now();
  PartTimer timer;
  m.device_coefficients(&timer);  // waits for the device: the caller's values written
  m.device_smoothers(&timer);  // marked: its stream done before the caller's next apply
  m.refresh_seconds = seconds_since(start);
  m.refresh_parts = timer.parts();
}

bool DeviceGamg::refreshes_on_device() const { return impl_->device != nullptr; }

void DeviceGamg::refactor(const double* diagonal, CUstream_st* stream) {
  Impl& m = *impl_;
  const label count = m.count;
  const double* d = diagonal;
  for (label l = 0; l < count; ++l) {
    Impl::Level& v = m.levels[l];
    if (l > 0) {
      Impl::Level& finer = m.levels[l - 1];
      enqueue_restrict_add(v.n, finer.group_ptr, finer.group_rows, d, v.inner.data(), v.diag.data(),
                           stream);
      d = v.diag.data();
    }
    if (l == count - 1) break;
    double* values = l > 0 ? v.spmv->device_values() : nullptr;
    double* inv_diag = v.sgs ? nullptr : v.inv_diag.data();
    if (values || inv_diag) enqueue_set_diagonal(v.n, d, v.diag_slot.data(), values, inv_diag, stream);
    if (v.sgs) v.sgs->refactor(d, stream);
  }
  if (m.whole) {
    // --- the gathered level's diagonal of every rank, into the whole matrix and its GAMG
    Impl::Whole& w = *m.whole;
    const auto n = static_cast<int>(w.diag.size());
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(w.diag_mine.data(), d, sizeof(double) * m.levels[count - 1].n,
                                       cudaMemcpyDeviceToDevice, stream));
    m.gather_ranks->all_gather(w.diag_mine.data(), m.gathered.data(), static_cast<int>(m.width), stream);
    enqueue_gather(n, w.padded_rows.data(), m.gathered.data(), w.diag.data(), nullptr, stream);
    enqueue_set_diagonal(n, w.diag.data(), w.diag_slot.data(), w.matrix->spmv().device_values(), nullptr, stream);
    w.gamg->refactor(w.diag.data(), stream);
    return;
  }
  // --- the coarsest inverse on the host (across ranks the whole coarsest matrix's, gathered):
  // --- its diagonal is a few hundred values at most
  std::vector<double> diag_op(m.coarsest.n_rows());
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(diag_op.data(), d, sizeof(double) * diag_op.size(), cudaMemcpyDeviceToHost, stream));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (m.device)
    m.coarsest.diag.assign(diag_op.begin(), diag_op.end());  // numbered as agglomerated
  else
    permute_to_old(m.hierarchy.numbering[count - 1], diag_op, m.coarsest.diag);
  m.hierarchy.coarsest = m.invert_coarsest();
  m.inverse.upload(m.hierarchy.coarsest.inverse, stream);
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void DeviceGamg::refresh_interfaces(const std::vector<ProcessorInterface>& interfaces) {
  if (impl_->hierarchy.across_ranks()) impl_->hierarchy.fine_interfaces = interfaces;
}

PreconditionerInfo DeviceGamg::info(std::int64_t) const {
  const Impl& m = *impl_;
  PreconditionerInfo i;
  i.name = "GAMG";
  i.setup_seconds = m.setup_seconds;
  i.setup_parts = m.setup_parts;
  i.refresh_seconds = m.refresh_seconds;
  i.refresh_parts = m.refresh_parts;
  i.grid_levels = m.hierarchy.grid;
  i.smoother = name(m.settings.smoother);
  return i;
}

}  // namespace fvmmini::cuda
