#pragma once
// A rank's rows of a matrix decomposed over ranks, as the reference CG sees it: y = A x is the
// local block's product (any format) plus the processor interfaces' couplings to the x of the
// ranks across, exchanged while the local product runs (linalg/distributed_ldu.hpp).

#include <span>
#include <vector>

#include "comm/communicator.hpp"
#include "linalg/distributed_ldu.hpp"
#include "registry/host_operator.hpp"

namespace fvmmini {

class DistributedOperator final : public HostOperator {
 public:
  /// @param[in] local the rank's block in its format; its row i is local row new_to_old[i] of the
  ///            DistributedLdu (its ordering); must outlive this object
  /// @param[in] old_to_new the local block's ordering: LDU row -> operator row (empty: identity)
  /// @throws std::invalid_argument for an interface whose rank is not another rank of comm, or
  ///         whose face cells are not rows of the block
  DistributedOperator(const HostOperator& local, std::span<const label> old_to_new,
                      const std::vector<ProcessorInterface>& interfaces, const Communicator& comm);

  /// Whether the local product runs while the halo travels (the default) or after it arrived.
  void set_overlap(bool overlap) { overlap_ = overlap; }

  label n_rows() const override { return local_.n_rows(); }
  void multiply(std::span<const double> x, std::span<double> y) const override;
  double multiply_dot(std::span<const double> x, std::span<double> y) const override;
  std::span<const double> diagonal() const override { return local_.diagonal(); }
  /// The local block's values only: refresh the interfaces with refresh_interfaces.
  void refresh_values(const LduMatrix& matrix) override;
  /// New interface coefficients on the same faces.
  void refresh_interfaces(const std::vector<ProcessorInterface>& interfaces);
  std::string format_name() const override { return local_.format_name(); }
  const Communicator& communicator() const override { return comm_; }
  const HostOperator& local_block() const override { return local_; }

  /// Shared faces over all interfaces of this rank.
  std::size_t interface_faces() const;
  /// The halo exchange of x alone, without the products (what a benchmark's split times).
  void exchange_halo(std::span<const double> x) const;

 private:
  /// Sends x at the face cells and starts the exchange.
  void start_exchange(std::span<const double> x) const;
  /// Waits for it and adds the couplings to y; returns sum over the faces of x[row] * coupling.
  double finish_exchange(std::span<const double> x, std::span<double> y) const;

  const HostOperator& local_;
  const Communicator& comm_;
  struct Interface {
    std::vector<label> rows;  ///< the face cells in the operator's ordering
    std::vector<double> coefficients;
  };
  std::vector<Interface> interfaces_;
  mutable HaloExchange halo_;  ///< a product's exchange is an implementation detail of a const multiply
  bool overlap_ = true;
};

}  // namespace fvmmini
